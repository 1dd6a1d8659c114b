"""Safety triage: an integer risk score and a run policy for a game archive, before it is unpacked.

The scanner walks the archive once (:func:`.extract.iter_archive`), looks at names,
entry types, modes, declared and actual sizes and the first bytes of every file, and adds up the
weights of the distinct signals it finds (each signal counts once, with up to five entries as
evidence). Metadata lowers the score of established games (``rating_count`` above a threshold) and
tells the scanner which platform the build is for, so that an ELF in a web game is suspicious while
the ELF of a native game is expected if a launcher explains it.

Policy by score: ``>= 4`` quarantine (never extracted, never run), ``3`` monitor (run with extra
logging), ``1-2`` run, ``0`` clean, ``< 0`` trusted.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from playsuite.archives.extract import (
    ArchiveError,
    Entry,
    Limits,
    UnsafeArchiveError,
    archive_format,
    iter_archive,
    link_stays_inside,
    links_escape,
    member_path,
)

#: signal -> (weight, meaning). Weights of 4 quarantine on their own.
SIGNALS: dict[str, tuple[int, str]] = {
    "corrupt": (4, "archive is corrupt or truncated (failed download)"),
    "unsupported_format": (4, "not a zip or tar archive: cannot be inspected"),
    "encrypted": (4, "password-protected/encrypted entries cannot be inspected"),
    "path_traversal": (4, "entry name climbs out of the archive root (..)"),
    "absolute_path": (4, "entry name is an absolute path or has a drive letter"),
    "link_escape": (4, "link pointing outside the archive root"),
    "compression_bomb": (4, "compression ratio over the limit (decompression bomb)"),
    "oversize": (4, "entry or archive over the size or entry-count limit"),
    "setuid": (4, "setuid or setgid bits"),
    "special_file": (4, "device or FIFO entry"),
    "foreign_executable": (3, "Windows (PE) or macOS (Mach-O) executable"),
    "unexpected_elf": (3, "Linux (ELF) executable in a web or Python game"),
    "unexplained_binary": (2, "binary that no launcher or declared entry explains"),
    "nested_archive": (1, "archive inside the archive (not inspected)"),
    "symlink": (1, "symbolic link (inside the archive)"),
    "hardlink": (1, "hard link (inside the archive)"),
    "trusted": (-1, "established game (many ratings)"),
}

POLICIES = ("quarantine", "monitor", "run", "clean", "trusted")
PLATFORMS = ("web", "native", "python")
MAX_EVIDENCE = 5
HEAD = 4096
LAUNCHER_MAX = 64 * 1024
_MACHO = (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe")
_SO = re.compile(r"\.so(\.\d+)*$")


def policy_for(risk: int) -> str:
    """The run policy for a risk score."""
    if risk >= 4:
        return "quarantine"
    if risk == 3:
        return "monitor"
    if risk >= 1:
        return "run"
    if risk == 0:
        return "clean"
    return "trusted"


@dataclass
class Signal:
    name: str
    weight: int
    evidence: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "weight": self.weight, "evidence": self.evidence}


@dataclass
class TriageReport:
    """What the scanner found; ``names`` (validated member paths) feed engine fingerprints."""

    archive: str
    platform: str
    risk: int
    policy: str
    signals: list[Signal]
    entries: int
    total_bytes: int
    compressed_bytes: int
    complete: bool
    names: list[str] = field(default_factory=list)
    executables: list[str] = field(default_factory=list)  # ELF executables, storage order

    def has(self, name: str) -> bool:
        return any(s.name == name for s in self.signals)

    def to_dict(self, with_names: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "archive": self.archive,
            "risk": self.risk,
            "policy": self.policy,
            "signals": [s.to_dict() for s in self.signals],
            "platform": self.platform,
            "entries": self.entries,
            "total_bytes": self.total_bytes,
            "compressed_bytes": self.compressed_bytes,
            "complete": self.complete,
            "executables": self.executables,
        }
        if with_names:
            out["names"] = self.names
        return out


def binary_kind(head: bytes, name: str = "") -> str | None:
    """Classify a file by its first bytes: ``elf-exec``, ``elf-lib``, ``pe``, ``macho``,
    ``archive`` or ``None``."""
    if head[:4] == b"\x7fELF":
        if _SO.search(name) or (len(head) > 17 and head[16] == 3 and ".so" in name):
            return "elf-lib"
        return "elf-exec"
    if head[:2] == b"MZ":
        if len(head) >= 64:
            offset = int.from_bytes(head[60:64], "little")
            if offset + 4 <= len(head) and head[offset : offset + 4] == b"PE\x00\x00":
                return "pe"
        if name.lower().endswith((".exe", ".dll", ".scr", ".com", ".sys", ".cpl", ".ocx")):
            return "pe"
        return None
    if head[:4] in _MACHO:
        return "macho"
    if head[:4] == b"\xca\xfe\xba\xbe" and int.from_bytes(head[4:8], "big") < 40:
        return "macho"  # fat binary; Java class files have a version >= 45 here
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06") or head[:6] in (
        b"7z\xbc\xaf\x27\x1c",
        b"Rar!\x1a\x07",
    ):
        return "archive"
    if len(head) > 262 and head[257:262] == b"ustar":
        return "archive"
    lower = name.lower()
    if head[:2] == b"\x1f\x8b" and lower.endswith((".tar.gz", ".tgz")):
        return "archive"
    return None


class _Findings:
    def __init__(self) -> None:
        self.found: dict[str, list[str]] = {}

    def add(self, name: str, evidence: str) -> None:
        items = self.found.setdefault(name, [])
        if len(items) < MAX_EVIDENCE and evidence not in items:
            items.append(evidence)


def _guess_platform(names: list[str], executables: list[str]) -> str:
    if executables:
        return "native"
    if any(posixpath.basename(n).lower() == "index.html" for n in names):
        return "web"
    if any(n.endswith(".py") for n in names):
        return "python"
    return "native"


@dataclass
class _Walk:
    """What one pass over an archive's members gathers; :meth:`visit` says whether to go on."""

    limits: Limits
    compressed: int
    found: _Findings
    names: list[str] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    binaries: list[tuple[str, str]] = field(default_factory=list)  # (path, kind)
    launchers: list[str] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    count: int = 0
    declared: int = 0
    complete: bool = True

    def _stop(self, name: str, evidence: str) -> bool:
        """Record a signal that ends the walk: what follows was never looked at."""
        self.found.add(name, evidence)
        self.complete = False
        return False

    def visit(self, item: Entry, stream: IO[bytes] | None) -> bool:
        """Look at one member (names, modes, entry type); False once the walk must stop."""
        self.count += 1
        if self.count > self.limits.max_entries:
            return self._stop("oversize", f"more than {self.limits.max_entries} entries")
        try:
            rel = member_path(item.name)
        except UnsafeArchiveError:
            text = item.name.replace("\\", "/")
            kind = "absolute_path" if text.startswith("/") or ":" in text[:2] else "path_traversal"
            self.found.add(kind, item.name)
            rel = text.lstrip("/")
        if rel:
            self.names.append(rel)
        if item.mode & (stat.S_ISUID | stat.S_ISGID):
            self.found.add("setuid", f"{item.name} ({oct(item.mode)})")
        if item.encrypted:
            self.found.add("encrypted", item.name)
        elif item.kind in ("device", "fifo"):
            self.found.add("special_file", f"{item.name} ({item.kind})")
        elif item.kind == "symlink":
            self.links[rel] = item.link
            inside = link_stays_inside(rel, item.link)
            self.found.add("symlink" if inside else "link_escape", f"{item.name} -> {item.link}")
        elif item.kind == "hardlink":
            try:
                source: str | None = member_path(item.link)
            except UnsafeArchiveError:
                source = None
            name = "hardlink" if source in self.files else "link_escape"
            self.found.add(name, f"{item.name} => {item.link}")
        elif item.kind == "file":
            return self._visit_file(item, rel, stream)
        return True

    def _visit_file(self, item: Entry, rel: str, stream: IO[bytes] | None) -> bool:
        """Sizes and ratios first (a bomb is never inflated), then the first bytes and launchers."""
        limits = self.limits
        self.files.add(rel)
        if item.size > limits.max_entry_bytes:
            return self._stop("oversize", f"{item.name} ({item.size} bytes)")
        self.declared += item.size
        if self.declared > limits.max_total_bytes:
            return self._stop("oversize", f"total over {limits.max_total_bytes} bytes")
        if (
            item.compressed is not None
            and item.size > limits.ratio_min_bytes
            and item.size > limits.max_ratio * max(item.compressed, 1)
        ):
            self.found.add("compression_bomb", f"{item.name} ({item.size}/{item.compressed})")
            return True  # do not inflate it
        if (
            self.declared > limits.ratio_min_bytes
            and self.declared > limits.max_ratio * self.compressed
        ):
            return self._stop("compression_bomb", f"{self.declared} bytes from {self.compressed}")
        assert stream is not None
        head = stream.read(HEAD)
        body = head
        kind = binary_kind(head, rel)
        is_launcher = rel.endswith((".sh", ".desktop")) or head[:2] == b"#!"
        while chunk := stream.read(1 << 20):
            if is_launcher and len(body) < LAUNCHER_MAX:
                body += chunk[: LAUNCHER_MAX - len(body)]
        if is_launcher and item.size <= LAUNCHER_MAX:
            self.launchers.append(body.decode("utf-8", "replace"))
        if kind == "archive":
            self.found.add("nested_archive", rel)
        elif kind is not None:
            self.binaries.append((rel, kind))
        return True


def _walk(path: Path, limits: Limits, found: _Findings) -> _Walk:
    """One pass over the archive at ``path``; a format it cannot read is itself a signal."""
    walk = _Walk(limits, path.stat().st_size, found)
    if archive_format(path) is None:
        found.add("unsupported_format", path.name)
        walk.complete = False
        return walk
    try:
        for item, stream in iter_archive(path):
            if not walk.visit(item, stream):
                break
    except ArchiveError as exc:
        found.add("corrupt", str(exc).split(": ", 1)[-1][:200])
        walk.complete = False
    return walk


def scan_archive(
    path: str | os.PathLike[str],
    platform: str | None = None,
    entry: str | None = None,
    rating_count: int | None = None,
    trusted_rating_count: int = 50,
    limits: Limits | None = None,
) -> TriageReport:
    """Scan ``path`` and return its risk report. Never extracts and never raises for bad archives:
    a corrupt or unreadable archive is itself a signal."""
    limits = limits or Limits()
    if platform is not None and platform not in PLATFORMS:
        raise ValueError(f"platform must be one of {', '.join(PLATFORMS)}, not {platform!r}")
    path = Path(path)
    found = _Findings()
    walk = _walk(path, limits, found)
    for name in links_escape(walk.links):
        found.add("link_escape", f"{name} -> {walk.links[name]} (resolved through other links)")
    executables = [p for p, k in walk.binaries if k == "elf-exec"]
    platform = platform or _guess_platform(walk.names, executables)
    for rel, kind in walk.binaries:
        if kind in ("pe", "macho"):
            found.add("foreign_executable", f"{rel} ({kind})")
        elif platform == "web" or (platform == "python" and kind == "elf-exec"):
            found.add("unexpected_elf", rel)
        elif platform == "python":
            found.add("unexplained_binary", rel)
    if platform == "native":
        _explain_native(walk.binaries, walk.launchers, entry, found)
    if rating_count is not None and rating_count > trusted_rating_count:
        found.add("trusted", f"{rating_count} ratings")
    signals = [Signal(n, SIGNALS[n][0], ev) for n, ev in found.found.items()]
    signals.sort(key=lambda s: (-s.weight, s.name))
    risk = sum(s.weight for s in signals)
    return TriageReport(
        archive=str(path),
        platform=platform,
        risk=risk,
        policy=policy_for(risk),
        signals=signals,
        entries=walk.count,
        total_bytes=walk.declared,
        compressed_bytes=walk.compressed,
        complete=walk.complete,
        names=walk.names,
        executables=executables,
    )


def _explain_native(
    binaries: list[tuple[str, str]], launchers: list[str], entry: str | None, found: _Findings
) -> None:
    """A native game's ELF executables must be its declared entry, named by a launcher script,
    or -- with neither -- the archive's only executable. Libraries ride along with them."""
    executables = [p for p, k in binaries if k == "elf-exec"]
    entry_path = entry.split()[0].removeprefix("./") if entry and entry.split() else ""
    explained: set[str] = set()
    for rel in executables:
        base = posixpath.basename(rel)
        is_entry = bool(entry_path) and (rel == entry_path or rel.endswith("/" + entry_path))
        launched = any(re.search(rf"(^|[/\s\"'=]){re.escape(base)}\b", t) for t in launchers)
        if is_entry or launched:
            explained.add(rel)
    if not entry_path and not launchers and len(executables) == 1:
        explained.add(executables[0])
    for rel in executables:
        if rel not in explained:
            found.add("unexplained_binary", rel)
    if not explained:
        for rel, kind in binaries:
            if kind == "elf-lib":
                found.add("unexplained_binary", rel)
