"""A Debian game's dependency closure: resolved against the index, fetched once, shared.

A Debian game is its own binary packages (every package of its source: the program, its
``-data``, ``-common``) plus whatever they depend on that the host does not already have. The
host's installed packages count as the base system (the sandbox sees the host's ``/usr``);
every other dependency is resolved against the apt index, pinned to the version the index
offers, downloaded and unpacked once into a package store shared by all games
(``{games_dir}/.debian/``), and linked into the game's ``deps/`` tree. At run time the sandbox
lays the game's tree and ``deps/`` over ``/usr`` (:mod:`playsuite.sandbox`), so programs,
libraries, Perl and Python modules sit at the paths they were built for and nothing is installed
on the host.

Resolution per dependency group (``a | b (>= 2)``): a package of the game's own source is always
fetched; otherwise the group is met by the host when any alternative is installed at a version
that satisfies it; otherwise the first alternative the index has (a virtual name by its first
real provider) is pinned and its own dependencies resolved in turn. What nothing satisfies is
recorded as unresolved, never silently dropped.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from playsuite.files import read_json, write_json_atomic
from playsuite.runtimes.fetchers.apt_index import (
    Alternative,
    AptIndex,
    control_fields,
    depends,
    satisfies,
    source_of,
)
from playsuite.runtimes.fetchers.common import AcquisitionError, file_sha256, run_logged

STORE = ".debian"  # under games_dir: one unpacked tree per package version
DEPS = "deps"  # under a game's root: its closure, linked from the store
PACKAGE_RECORD = "package.json"
#: A guard against a row whose closure would pull a desktop environment.
MAX_PACKAGES = 400
#: Top-level directories that merged-/usr systems keep under /usr (bin -> usr/bin, ...).
MERGED_USR = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


@dataclass(frozen=True)
class Pin:
    name: str
    version: str


@dataclass
class Closure:
    """What a game needs beyond the host, and what the host gives it."""

    own: list[Pin] = field(default_factory=list)  # the game's source's binary packages
    fetched: list[Pin] = field(default_factory=list)  # dependencies the host lacks
    host: dict[str, str] = field(default_factory=dict)  # dependency -> host's version
    unresolved: list[str] = field(default_factory=list)  # groups nothing satisfies


def resolve(main: dict[str, str], index: AptIndex, extra: Sequence[str] = ()) -> Closure:
    """The closure of the package whose control fields are ``main`` (plus ``extra`` names)."""
    game_source = source_of(main)
    closure = Closure(own=[Pin(main["Package"], main["Version"])])
    chosen: dict[str, dict[str, str]] = {main["Package"]: main}
    queue: deque[dict[str, str]] = deque([main])
    for name in extra:
        fields = index.show(name)
        if fields is None:
            raise AcquisitionError(f"apt-cache knows no package {name!r} (options.acquire)")
        _choose(closure, chosen, queue, fields, own=source_of(fields) == game_source)
    while queue:
        fields = queue.popleft()
        groups = depends(fields.get("Pre-Depends", "")) + depends(fields.get("Depends", ""))
        index.prefetch(
            [f"{n}={v}" if (v := _exact(c)) else n for group in groups for n, c in group]
            + [n for group in groups for n, _ in group]
        )
        for group in groups:
            if any(name in chosen for name, _ in group):
                continue
            own = _own_package(group, index, game_source)
            if own is not None:
                _choose(closure, chosen, queue, own, own=True)
                continue
            host = next(((n, v) for n, c in group if (v := index.satisfied_by_host((n, c)))), None)
            if host is not None:
                closure.host.setdefault(host[0], host[1])
                continue
            picked = _from_index(group, index)
            if picked is None:
                closure.unresolved.append(" | ".join(_spell(alt) for alt in group))
                continue
            _choose(closure, chosen, queue, picked, own=False)
        if len(chosen) > MAX_PACKAGES:
            raise AcquisitionError(
                f"{main['Package']}: the dependency closure passed {MAX_PACKAGES} packages"
            )
    closure.unresolved = sorted(set(closure.unresolved))
    return closure


def _choose(
    closure: Closure,
    chosen: dict[str, dict[str, str]],
    queue: deque[dict[str, str]],
    fields: dict[str, str],
    *,
    own: bool,
) -> None:
    if fields["Package"] in chosen:
        return
    chosen[fields["Package"]] = fields
    (closure.own if own else closure.fetched).append(Pin(fields["Package"], fields["Version"]))
    queue.append(fields)


def _exact(constraint: str | None) -> str | None:
    match = re.fullmatch(r"=\s*(\S+)", constraint or "")
    return match.group(1) if match else None


def _own_package(
    group: list[Alternative], index: AptIndex, game_source: tuple[str, str]
) -> dict[str, str] | None:
    """The group's package of the game's own source (``x-data (= 1.0-3)``), if it is one.

    Compared by source name and source version: a binNMU rebuild (``1.0-3+b1``) depends on data
    packages of its source version (``1.0-3``).
    """
    if len(group) != 1:
        return None
    name, constraint = group[0]
    fields = index.show(name, _exact(constraint))
    return fields if fields is not None and source_of(fields) == game_source else None


def _from_index(group: list[Alternative], index: AptIndex) -> dict[str, str] | None:
    for name, constraint in group:
        fields = index.show(name, _exact(constraint))
        if fields is not None and (constraint is None or satisfies(fields["Version"], constraint)):
            return fields
        if fields is None:  # a virtual name: its first real provider
            for real in index.providers(name):
                if (provider := index.show(real)) is not None:
                    return provider
    return None


def _spell(alternative: Alternative) -> str:
    name, constraint = alternative
    return f"{name} ({constraint})" if constraint else name


# --- the shared package store -------------------------------------------------------------------


def store_entry(games_dir: Path, pin: Pin) -> Path:
    """The store directory of one package version (``:`` of epochs is not allowed in overlay
    mount options, so it is spelled ``%3a``)."""
    return games_dir / STORE / f"{pin.name}_{pin.version.replace(':', '%3a')}"


def fetch_into_store(games_dir: Path, pins: list[Pin], log: IO[str] | None) -> list[dict[str, Any]]:
    """Download and unpack every pin the store lacks (one ``apt-get download`` for all of them);
    return each pin's record (name, version, file, sha256). Safe when several acquisitions run
    at once: an entry appears by a rename, and a lost race keeps the winner's identical copy."""
    store = games_dir / STORE
    store.mkdir(parents=True, exist_ok=True)
    missing = [p for p in pins if not (store_entry(games_dir, p) / PACKAGE_RECORD).is_file()]
    if missing:
        with tempfile.TemporaryDirectory(prefix=".download-", dir=store) as tmp:
            downloads = Path(tmp) / "debs"
            downloads.mkdir()
            run_logged(
                ["apt-get", "download", "-q", *(f"{p.name}={p.version}" for p in missing)],
                log,
                cwd=downloads,
            )
            for pin in missing:
                _unpack_into_store(games_dir, pin, downloads, Path(tmp), log)
    return [read_json(store_entry(games_dir, p) / PACKAGE_RECORD) for p in pins]


def _unpack_into_store(
    games_dir: Path, pin: Pin, downloads: Path, tmp: Path, log: IO[str] | None
) -> None:
    debs = [
        d
        for d in downloads.glob(f"{pin.name}_*.deb")
        if control_fields(run_logged(["dpkg-deb", "-f", str(d)], None)).get("Version")
        == pin.version
    ]
    if len(debs) != 1:
        raise AcquisitionError(f"apt-get download gave no .deb of {pin.name} {pin.version}")
    stage = Path(tempfile.mkdtemp(prefix=f"{pin.name}-", dir=tmp))
    tree = stage / "tree"
    run_logged(["dpkg-deb", "-x", str(debs[0]), str(tree)], log)
    _merge_usr(tree)
    record = {
        "name": pin.name,
        "version": pin.version,
        "file": debs[0].name,
        "sha256": file_sha256(debs[0]),
    }
    write_json_atomic(stage / PACKAGE_RECORD, record)
    with contextlib.suppress(OSError):  # another acquisition stored it first: same bytes
        os.replace(stage, store_entry(games_dir, pin))


def _merge_usr(tree: Path) -> None:
    """Move ``/lib``, ``/bin``... of an unpacked package under ``usr/`` (merged-/usr layout), so
    the one overlay of ``/usr`` carries them (the host's ``/lib`` links to ``usr/lib``)."""
    for name in MERGED_USR:
        top = tree / name
        if top.is_dir() and not top.is_symlink():
            _link_tree(top, tree / "usr" / name)
            shutil.rmtree(top)


def link_closure(games_dir: Path, pins: list[Pin], deps: Path) -> None:
    """Build a game's ``deps/`` tree from the store by hard links (copies across devices)."""
    deps.mkdir(parents=True, exist_ok=True)
    for pin in pins:
        _link_tree(store_entry(games_dir, pin) / "tree", deps)


def _link_tree(source: Path, dest: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(source):
        rel = Path(dirpath).relative_to(source)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        for name in filenames + [d for d in dirnames if os.path.islink(Path(dirpath, d))]:
            src = Path(dirpath, name)
            target = dest / rel / name
            if os.path.lexists(target):
                continue  # two packages ship the same path: the first one linked wins
            if src.is_symlink():
                target.symlink_to(os.readlink(src))
                continue
            try:
                os.link(src, target)
            except OSError:
                shutil.copy2(src, target)
