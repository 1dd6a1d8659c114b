"""Reading game archives entry by entry, and extracting them safely.

Game archives come from strangers. Both the triage scanner and the extractor walk an archive
through :func:`iter_archive`, which yields one :class:`Entry` at a time in storage order with a
stream of its data, so neither ever trusts a header it has not checked against the bytes.

:func:`safe_extract` is safe by construction rather than by a prior scan: every name is validated
as it is met (no absolute paths, no ``..``, no drive letters), files are created with
``O_EXCL | O_NOFOLLOW`` below a staging directory that no link yet points out of, byte counts are
enforced while writing (a header can lie about sizes), links are made last and checked against
their resolved location, and the staging directory is renamed onto the target only when everything
succeeded. On any refusal the staging directory is removed: nothing is left behind and nothing is
ever written outside the target.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

CHUNK = 1 << 20
HEAD_BYTES = 20


class ArchiveError(Exception):
    """The archive cannot be read: unknown format, corrupt or truncated (a failed download)."""


class UnsafeArchiveError(ValueError):
    """Extraction was refused; nothing was written."""


@dataclass(frozen=True)
class Limits:
    """Size limits that separate a game from a decompression bomb.

    ``max_ratio`` is judged only above ``ratio_min_bytes`` of output: tiny files of zeros compress
    by thousands, and that is harmless.
    """

    max_entry_bytes: int = 2 << 30
    max_total_bytes: int = 8 << 30
    max_ratio: float = 100.0
    ratio_min_bytes: int = 1 << 20
    max_entries: int = 100_000


@dataclass(frozen=True)
class Entry:
    """One archive member as stored (the name is not yet validated)."""

    name: str
    kind: str  # file | dir | symlink | hardlink | device | fifo
    size: int  # declared uncompressed size
    compressed: int | None  # zip: stored size of this entry; tar: None (one stream for all)
    mode: int  # permission bits including setuid/setgid/sticky
    link: str = ""  # link target for symlink / hardlink
    encrypted: bool = False


def archive_format(path: str | os.PathLike[str]) -> str | None:
    """``"zip"`` or ``"tar"`` (plain, gz, bz2, xz) by content, not by name; ``None`` otherwise."""
    with open(path, "rb") as fh:
        magic = fh.read(6)
    if magic[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if magic[:2] == b"\x1f\x8b" or magic[:3] == b"BZh" or magic[:6] == b"\xfd7zXZ\x00":
        return "tar"
    try:
        if tarfile.is_tarfile(path):
            return "tar"
    except OSError:
        return None
    return None


def _zip_entry(info: zipfile.ZipInfo) -> Entry:
    unix_mode = info.external_attr >> 16
    ftype = stat.S_IFMT(unix_mode)
    if info.is_dir() or ftype == stat.S_IFDIR:
        kind = "dir"
    elif ftype == stat.S_IFLNK:
        kind = "symlink"
    elif ftype in (stat.S_IFCHR, stat.S_IFBLK):
        kind = "device"
    elif ftype == stat.S_IFIFO:
        kind = "fifo"
    else:
        kind = "file"
    return Entry(
        name=info.filename,
        kind=kind,
        size=info.file_size,
        compressed=info.compress_size,
        mode=stat.S_IMODE(unix_mode),
        encrypted=bool(info.flag_bits & 0x1),
    )


def _tar_entry(member: tarfile.TarInfo) -> Entry:
    if member.isdir():
        kind = "dir"
    elif member.issym():
        kind = "symlink"
    elif member.islnk():
        kind = "hardlink"
    elif member.ischr() or member.isblk():
        kind = "device"
    elif member.isfifo():
        kind = "fifo"
    else:
        kind = "file"
    return Entry(
        name=member.name,
        kind=kind,
        size=member.size if kind == "file" else 0,
        compressed=None,
        mode=member.mode,
        link=member.linkname,
    )


class _Checked:
    """Wraps an entry stream, turning low-level decode failures into :class:`ArchiveError`."""

    def __init__(self, stream: IO[bytes], name: str) -> None:
        self._stream = stream
        self._name = name

    def read(self, n: int = -1) -> bytes:
        try:
            return self._stream.read(n)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, tarfile.TarError) as exc:
            raise ArchiveError(f"entry {self._name!r} is corrupt or truncated: {exc}") from None


def iter_archive(
    path: str | os.PathLike[str],
) -> Iterator[tuple[Entry, _Checked | None]]:
    """Yield ``(entry, stream)`` in storage order; ``stream`` is ``None`` for non-files and
    encrypted entries. Read a stream before advancing: tar archives are read as one stream.

    Raises :class:`ArchiveError` for an unknown format or a corrupt/truncated archive.
    """
    fmt = archive_format(path)
    if fmt is None:
        raise ArchiveError(f"{path}: not a zip or tar archive")
    try:
        if fmt == "zip":
            with zipfile.ZipFile(path) as zf:
                for info in zf.infolist():
                    entry = _zip_entry(info)
                    if entry.kind == "symlink" and not entry.encrypted:
                        with zf.open(info) as stream:  # a zip symlink stores its target as data
                            target = stream.read(4096).decode("utf-8", "replace")
                        yield replace(entry, link=target), None
                    elif entry.kind == "file" and not entry.encrypted:
                        with zf.open(info) as stream:
                            yield entry, _Checked(stream, entry.name)
                    else:
                        yield entry, None
        else:
            with tarfile.open(path, "r|*") as tf:
                for member in tf:
                    entry = _tar_entry(member)
                    stream = tf.extractfile(member) if entry.kind == "file" else None
                    yield entry, (_Checked(stream, entry.name) if stream is not None else None)
    except ArchiveError:
        raise
    except (zipfile.BadZipFile, tarfile.TarError, zlib.error, EOFError, OSError) as exc:
        raise ArchiveError(f"{path}: corrupt or truncated archive: {exc}") from None


_DRIVE = re.compile(r"^[A-Za-z]:")


def member_path(name: str) -> str:
    """The validated relative POSIX path of an archive member.

    Backslashes count as separators (Windows-made zips), so ``..\\..\\x`` is caught too.
    Raises :class:`UnsafeArchiveError` for absolute paths, drive letters and ``..`` components.
    """
    text = name.replace("\\", "/")
    if text.startswith("/") or _DRIVE.match(text):
        raise UnsafeArchiveError(f"absolute path in archive: {name!r}")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchiveError(f"path traversal in archive: {name!r}")
    if not parts:
        return ""
    if any("\x00" in p for p in parts):
        raise UnsafeArchiveError(f"NUL byte in archive name: {name!r}")
    return "/".join(parts)


def link_stays_inside(member: str, link: str) -> bool:
    """Whether a symlink at ``member`` pointing at ``link`` stays inside the root, lexically."""
    if not link or link.startswith("/") or _DRIVE.match(link):
        return False
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(member), link))
    return not (joined == ".." or joined.startswith("../"))


def links_escape(links: dict[str, str], limit: int = 40) -> list[str]:
    """Members of ``links`` (symlink path -> target) whose full resolution leaves the root.

    Lexical checks of each link alone are not enough: ``d -> .`` and ``e -> d/..`` each look
    harmless, yet ``e`` resolves to the root's parent. This resolves every link through the
    others, component by component, as the kernel would.
    """

    def escapes(path: str) -> bool:
        pending = [p for p in path.split("/") if p]
        resolved: list[str] = []
        hops = 0
        while pending:
            part = pending.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if not resolved:
                    return True
                resolved.pop()
                continue
            here = "/".join([*resolved, part])
            if here in links:
                hops += 1
                target = links[here]
                if hops > limit or target.startswith("/"):
                    return True
                pending = [p for p in target.split("/") if p] + pending
                continue
            resolved.append(part)
        return False

    return [name for name in links if escapes(name)]


def _ensure_dirs(root: Path, rel_dir: str) -> Path:
    """Create ``root/rel_dir`` one component at a time, refusing to pass through a symlink."""
    current = root
    for part in [p for p in rel_dir.split("/") if p]:
        current = current / part
        if current.is_symlink():
            raise UnsafeArchiveError(f"entry path passes through a link: {rel_dir!r}")
        if not current.exists():
            current.mkdir()
        elif not current.is_dir():
            raise UnsafeArchiveError(f"entry path passes through a file: {rel_dir!r}")
    return current


def _create(dest: Path, rel: str) -> int:
    """Create a new file; never follow or replace anything already there."""
    try:
        return os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except (FileExistsError, IsADirectoryError, NotADirectoryError):
        raise UnsafeArchiveError(f"entry {rel!r} conflicts with another entry") from None


def _safe_mode(mode: int, executable_default: bool = False) -> int:
    """Keep owner/group/other read-execute bits and owner write; drop setuid, setgid, sticky."""
    keep = mode & 0o755
    if keep == 0:
        keep = 0o755 if executable_default else 0o644
    return keep | 0o200


def safe_extract(
    archive: str | os.PathLike[str], target: str | os.PathLike[str], limits: Limits | None = None
) -> list[str]:
    """Extract ``archive`` into ``target`` (absent or empty) and return the extracted paths.

    Refuses (:class:`UnsafeArchiveError`) absolute or traversing names, links that leave the
    target, device and FIFO entries, encrypted entries, duplicates, and any entry, total or
    compression ratio over ``limits``. Raises :class:`ArchiveError` for corrupt archives.
    """
    limits = limits or Limits()
    archive = Path(archive)
    target = Path(target)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UnsafeArchiveError(f"extraction target {target} exists and is not empty")
    target.parent.mkdir(parents=True, exist_ok=True)
    compressed_size = archive.stat().st_size
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.extract-", dir=target.parent))
    try:
        written = _extract_into(archive, staging, limits, compressed_size)
        if target.exists():
            target.rmdir()
        os.rename(staging, target)
        return written
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


@dataclass
class _Written:
    """Bytes written so far against the archive-wide limits (a header can lie about sizes)."""

    limits: Limits
    compressed_size: int
    total: int = 0

    def add(self, n: int, *, ratio: bool = True) -> None:
        self.total += n
        if self.total > self.limits.max_total_bytes:
            raise UnsafeArchiveError("archive exceeds the total size limit")
        limits = self.limits
        over_ratio = self.total > limits.max_ratio * self.compressed_size
        if ratio and self.total > limits.ratio_min_bytes and over_ratio:
            raise UnsafeArchiveError(
                f"compression ratio over {limits.max_ratio:g} (decompression bomb)"
            )


def _extract_into(archive: Path, root: Path, limits: Limits, compressed_size: int) -> list[str]:
    """Files as they come; hard links and symbolic links once every file is there."""
    budget = _Written(limits, compressed_size)
    count = 0
    files: set[str] = set()
    written: list[str] = []
    symlinks: list[tuple[str, str]] = []
    hardlinks: list[tuple[str, str]] = []
    for entry, stream in iter_archive(archive):
        count += 1
        if count > limits.max_entries:
            raise UnsafeArchiveError(f"more than {limits.max_entries} entries")
        rel = member_path(entry.name)
        if entry.encrypted:
            raise UnsafeArchiveError(f"encrypted entry: {entry.name!r}")
        if entry.kind in ("device", "fifo"):
            raise UnsafeArchiveError(f"special file ({entry.kind}) in archive: {entry.name!r}")
        if not rel:
            continue
        if entry.kind == "dir":
            _ensure_dirs(root, rel)
            continue
        if rel in files:
            raise UnsafeArchiveError(f"duplicate entry: {entry.name!r}")
        files.add(rel)
        if entry.kind == "symlink":
            if not link_stays_inside(rel, entry.link):
                raise UnsafeArchiveError(
                    f"link leaves the target: {entry.name!r} -> {entry.link!r}"
                )
            symlinks.append((rel, entry.link))
            continue
        if entry.kind == "hardlink":
            source = member_path(entry.link)
            if source not in files or source == rel:
                raise UnsafeArchiveError(
                    f"hard link to a file outside the archive: {entry.name!r} -> {entry.link!r}"
                )
            hardlinks.append((rel, source))
            continue
        assert stream is not None
        _write_file(root, rel, entry, stream, budget)
        written.append(rel)
    written += _copy_hardlinks(root, hardlinks, budget)
    written += _make_symlinks(root, symlinks)
    return written


def _write_file(root: Path, rel: str, entry: Entry, stream: IO[bytes], budget: _Written) -> None:
    """One regular file, its bytes counted as they are written; a safe mode once complete."""
    limits = budget.limits
    if entry.size > limits.max_entry_bytes:
        raise UnsafeArchiveError(f"entry {entry.name!r} declares {entry.size} bytes (oversize)")
    parent = _ensure_dirs(root, posixpath.dirname(rel))
    dest = parent / posixpath.basename(rel)
    fd = _create(dest, rel)
    size = 0
    with os.fdopen(fd, "wb") as out:
        while chunk := stream.read(CHUNK):
            size += len(chunk)
            if size > limits.max_entry_bytes:
                raise UnsafeArchiveError(f"entry {entry.name!r} exceeds the entry size limit")
            budget.add(len(chunk))
            out.write(chunk)
    os.chmod(dest, _safe_mode(entry.mode))


def _copy_hardlinks(root: Path, hardlinks: list[tuple[str, str]], budget: _Written) -> list[str]:
    """Hard links become copies of files already extracted (they count towards the total)."""
    written = []
    for rel, source in hardlinks:
        parent = _ensure_dirs(root, posixpath.dirname(rel))
        src = root / source
        if src.is_symlink() or not src.is_file():
            raise UnsafeArchiveError(f"hard link to a non-file: {rel!r} -> {source!r}")
        budget.add(src.stat().st_size, ratio=False)
        dest = parent / posixpath.basename(rel)
        fd = _create(dest, rel)
        with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
            shutil.copyfileobj(inp, out, CHUNK)
        os.chmod(dest, stat.S_IMODE(src.stat().st_mode))
        written.append(rel)
    return written


def _make_symlinks(root: Path, symlinks: list[tuple[str, str]]) -> list[str]:
    """Links last, once no file is to be written through them; each must resolve inside ``root``."""
    escaping = links_escape(dict(symlinks))
    if escaping:
        raise UnsafeArchiveError(f"link resolves outside the target: {escaping[0]!r}")
    real_root = os.path.realpath(root)
    written = []
    for rel, link in symlinks:
        parent = _ensure_dirs(root, posixpath.dirname(rel))
        dest = parent / posixpath.basename(rel)
        if dest.exists() or dest.is_symlink():
            raise UnsafeArchiveError(f"link {rel!r} conflicts with another entry")
        os.symlink(link, dest)
        written.append(rel)
    for rel, _ in symlinks:
        resolved = os.path.realpath(root / rel)
        if os.path.commonpath([real_root, resolved]) != real_root:
            raise UnsafeArchiveError(f"link resolves outside the target: {rel!r}")
    return written
