"""What Debian's package index and this host's dpkg database say, asked through apt and dpkg.

The dependency closure of a Debian game (:mod:`.debian_closure`) needs four answers: a package's
control fields at a version (``apt-cache show``), the real packages behind a virtual name
(``apt-cache showpkg``), what the host has installed (``dpkg-query``, read once per process) and
whether a version satisfies a constraint (``dpkg --compare-versions``, Debian's own ordering with
epochs, tildes and ``+bN`` rebuilds). Each answer is remembered for the life of the index.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import IO

from playsuite.processes import probe
from playsuite.runtimes.fetchers.common import AcquisitionError, run_logged

#: ``Depends`` operators as dpkg writes them.
OPERATORS = ("<<", "<=", "=", ">=", ">>")

Alternative = tuple[str, str | None]  # (name, "op version") or (name, None)


def control_fields(text: str) -> dict[str, str]:
    """Parse the first RFC-822 style stanza (continuation lines keep their leading space)."""
    fields: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        if line[0] in " \t" and key:
            fields[key] += "\n" + line
        elif ":" in line:
            key, _, value = line.partition(":")
            key = key.strip()
            fields[key] = value.strip()
    return fields


def depends(field_text: str) -> list[list[Alternative]]:
    """``a (>= 1) | b, c (= 2)`` -> [[("a", ">= 1"), ("b", None)], [("c", "= 2")]]."""
    out = []
    for group in field_text.split(","):
        alts = []
        for alt in group.split("|"):
            match = re.match(r"\s*([^\s(:]+)(?::\S+)?\s*(?:\(([^)]*)\))?", alt)
            if match:
                constraint = match.group(2).strip() if match.group(2) else None
                alts.append((match.group(1), constraint))
        if alts:
            out.append(alts)
    return out


def source_of(fields: dict[str, str]) -> tuple[str, str]:
    """(source package, source version) of a binary package's control fields.

    ``Source: x (1.0-3)`` names the version when it differs from the binary's, as it does for
    binNMU rebuilds (binary ``1.0-3+b1``); without it the source version is the binary's.
    """
    version = fields.get("Version", "")
    text = fields.get("Source", "").strip()
    if not text:
        return fields.get("Package", ""), version
    match = re.match(r"(\S+)(?:\s*\(([^)]*)\))?", text)
    assert match is not None
    return match.group(1), (match.group(2) or version).strip()


@dataclass
class AptIndex:
    """Memoised answers of apt and dpkg on this machine; ``log`` receives the apt commands run."""

    log: IO[str] | None = None
    _shown: dict[str, dict[str, str] | None] = field(default_factory=dict)
    _providers: dict[str, list[str]] = field(default_factory=dict)

    def show(self, name: str, version: str | None = None) -> dict[str, str] | None:
        """Control fields of ``name`` (its candidate, or exactly ``version``); ``None`` when the
        index has no such real package (unknown, or only virtual)."""
        spec = f"{name}={version}" if version else name
        if spec not in self._shown:
            try:
                text = run_logged(["apt-cache", "show", "--no-all-versions", spec], self.log)
            except AcquisitionError:
                text = ""
            fields = control_fields(text)
            self._shown[spec] = fields if fields.get("Version") else None
        return self._shown[spec]

    def prefetch(self, specs: list[str]) -> None:
        """Look up many ``name`` / ``name=version`` specs in one ``apt-cache show`` (each call
        loads the whole index, about a second): :meth:`show` then answers from memory."""
        wanted = [s for s in dict.fromkeys(specs) if s not in self._shown]
        if not wanted:
            return
        done = probe(["apt-cache", "show", "--no-all-versions", *wanted], timeout_s=300)
        if self.log is not None:
            self.log.write(f"$ apt-cache show --no-all-versions {' '.join(wanted)}\n")
        text = done.stdout if done is not None else ""
        stanzas = [control_fields(block) for block in text.split("\n\n") if block.strip()]
        found = {(f.get("Package"), f.get("Version")): f for f in stanzas if f.get("Version")}
        latest = {f.get("Package"): f for f in stanzas if f.get("Version")}
        for spec in wanted:
            name, _, version = spec.partition("=")
            self._shown[spec] = found.get((name, version)) if version else latest.get(name)

    def providers(self, name: str) -> list[str]:
        """Real packages that declare ``Provides: name`` (the index's reverse provides)."""
        if name not in self._providers:
            done = probe(["apt-cache", "showpkg", name], timeout_s=60)
            found: list[str] = []
            if done is not None and done.returncode == 0:
                _, _, tail = done.stdout.partition("Reverse Provides:")
                found = [line.split()[0] for line in tail.splitlines() if line.strip()]
            self._providers[name] = list(dict.fromkeys(found))
        return self._providers[name]

    def installed(self, name: str) -> str | None:
        """The host's installed version of ``name``, or of a package that provides it."""
        versions, provided = _host_packages()
        return versions.get(name) or provided.get(name)

    def satisfied_by_host(self, alternative: Alternative) -> str | None:
        """The host's version when it satisfies ``alternative``, else ``None``."""
        name, constraint = alternative
        version = self.installed(name)
        if version is None or constraint is None or name not in _host_packages()[0]:
            return version  # a virtual name is satisfied by any provider (Debian's rule)
        return version if satisfies(version, constraint) else None


def satisfies(version: str, constraint: str) -> bool:
    """Does ``version`` meet ``constraint`` (``">= 1.2"``)? Debian's ordering, via dpkg."""
    match = re.match(r"\s*(<<|<=|=|>=|>>|<|>)\s*(\S+)", constraint)
    if not match:
        return True
    op = {"<": "<=", ">": ">="}.get(match.group(1), match.group(1))
    done = probe(["dpkg", "--compare-versions", version, op, match.group(2)], timeout_s=10)
    if done is None:
        raise AcquisitionError("dpkg is not installed: Debian versions cannot be compared")
    return done.returncode == 0


@functools.cache
def _host_packages() -> tuple[dict[str, str], dict[str, str]]:
    """Installed packages of this host: name -> version, and provided name -> provider version.

    Read once per process; a host without dpkg has none (every dependency is then fetched).
    """
    done = probe(["dpkg-query", "-W", "-f=${Package}\t${Version}\t${Status}\t${Provides}\n"])
    versions: dict[str, str] = {}
    provided: dict[str, str] = {}
    if done is None or done.returncode != 0:
        return versions, provided
    for line in done.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) < 4 or "install ok installed" not in parts[2]:
            continue
        versions[parts[0]] = parts[1]
        for group in depends(parts[3]):
            for name, _ in group:
                provided.setdefault(name, parts[1])
    return versions, provided
