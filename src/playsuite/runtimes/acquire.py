"""Acquire a game's files from its registry, the same way on every machine.

Every game is fetched by the workflow from where its row says it lives, never copied by hand:

``debian``  ``apt-get download`` then ``dpkg -x`` of the package and its source's other packages,
            plus its dependency closure beyond the host (``deps/``, shared; run at installed
            paths: :func:`installed_layers`)
``pypi``    a per-game virtual environment (Debian's ``/usr/bin/python3``, system site packages
            visible so Debian's numpy is reused) with ``pip install package==version``
``npm``     ``npm pack`` then extraction of the tarball; ``options.page`` generates a start page
            for packages that ship only a script
``local``   a directory in this repository (test fixtures, games kept in-tree), copied again
            whenever its content changes
``itch``, ``pyweek``  an archive (zip or tar; a path or an ``http(s)://`` URL) unpacked with the
            catalog's :func:`~playsuite.archives.extract.safe_extract`, after a fresh safety
            triage of the very bytes being unpacked: a quarantined archive is never extracted

Result layout, ``{games_dir}/{id}/``: ``files/`` (the game tree, read-only at ``/game`` in the
sandbox), for Debian games ``deps/`` (the packages of its dependency closure, linked from the
shared store ``{games_dir}/.debian/``), and ``acquired.json`` (what was fetched: packages,
versions, sha256 of each download, the dependencies met by the host, a hash of the whole tree,
the metadata read from the package). Work happens in a temporary sibling directory that is
renamed into place, and ``acquired.json`` is written last, so an interrupted
acquisition never looks finished. Acquiring again with the same request is a no-op.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from playsuite.corpus import GameEntry
from playsuite.files import read_json, write_json_atomic
from playsuite.locks import ShardBusy, exclusive_lock
from playsuite.runtimes.fetchers.archive import acquire_archive, archive_triage
from playsuite.runtimes.fetchers.common import (
    DEBIAN_PYTHON,
    FILES,
    MANIFEST,
    AcquisitionError,
    tree_sha256,
)
from playsuite.runtimes.fetchers.debian import acquire_debian, read_text_maybe_gz
from playsuite.runtimes.fetchers.debian_closure import DEPS
from playsuite.runtimes.fetchers.packages import (
    acquire_local,
    acquire_npm,
    acquire_pypi,
    local_content,
    write_page,
)

__all__ = [
    "DEBIAN_PYTHON",
    "FILES",
    "MANIFEST",
    "AcquiredGame",
    "AcquisitionError",
    "acquire",
    "archive_triage",
    "game_root",
    "installed_layers",
    "load_acquired",
    "read_text_maybe_gz",
    "request_of",
    "tree_sha256",
]

MANIFEST_VERSION = 2  # 2: dependency closure (dependencies, host_packages, layers)
ARCHIVE_SOURCES = ("itch", "pyweek")
#: How long an acquisition waits for another process fetching the same game into the same
#: folder (a large Debian closure or archive takes minutes on a slow mirror).
ACQUIRE_LOCK_WAIT_S = 3600.0


@dataclass(frozen=True)
class AcquiredGame:
    """An acquired game on disk. ``files`` is what the sandbox binds read-only at ``/game``."""

    game_id: str
    root: Path
    manifest: dict[str, Any]

    @property
    def files(self) -> Path:
        return self.root / FILES

    @property
    def python(self) -> str:
        """Interpreter of a pygame game, a path inside the sandbox (a /game venv or Debian's)."""
        return str(self.manifest.get("python") or DEBIAN_PYTHON)

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.manifest.get("metadata") or {})

    @property
    def unresolved_dependencies(self) -> list[str]:
        """Dependency groups that neither the host nor the package index could satisfy."""
        return list(self.manifest.get("unresolved_dependencies") or [])

    @property
    def usr_layers(self) -> tuple[Path, ...]:
        """Trees laid over ``/usr`` in the sandbox (top first): see :func:`installed_layers`."""
        return tuple(
            self.root / name / "usr"
            for name in self.manifest.get("layers") or ()
            if (self.root / name / "usr").is_dir()
        )


def installed_layers(game_dir: str | os.PathLike[str]) -> tuple[Path, ...]:
    """The ``/usr`` layers of the acquired game whose files are ``game_dir`` (none for a folder
    that is not an acquired game, e.g. a test fixture played in place).

    Debian games run with their own packages and their dependency closure at the paths they were
    built for: the sandbox lays these trees over the host's ``/usr``.
    """
    root = Path(game_dir).absolute().parent
    if Path(game_dir).name != FILES or not (root / MANIFEST).is_file():
        return ()
    with contextlib.suppress(OSError, ValueError):
        return AcquiredGame(root.name, root, read_json(root / MANIFEST)).usr_layers
    return ()


def game_root(games_dir: str | os.PathLike[str], game_id: str) -> Path:
    return Path(games_dir) / game_id


def load_acquired(games_dir: str | os.PathLike[str], game_id: str) -> AcquiredGame:
    """The acquired game ``game_id`` under ``games_dir``; :class:`AcquisitionError` if absent."""
    root = game_root(games_dir, game_id)
    path = root / MANIFEST
    if not path.is_file() or not (root / FILES).is_dir():
        raise AcquisitionError(f"game {game_id!r} is not acquired under {games_dir} (no {path})")
    return AcquiredGame(game_id, root, read_json(path))


def request_of(game: GameEntry, base_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """What decides what is fetched: the row's part, and for a ``local`` game a hash of its
    folder's content (``base_dir`` resolves a relative folder; default: the current directory).
    A change means acquiring again."""
    request = {
        "source": game.source,
        "package": game.package,
        "version": game.version,
        "acquire": game.options.get("acquire") or {},
        "page": game.options.get("page"),
    }
    if game.source in ARCHIVE_SOURCES:  # a new catalog verdict is checked again
        request["triage"] = game.options.get("triage")
    if game.source == "local":  # edited files are copied again
        request["content"] = local_content(game, Path(base_dir or Path.cwd()))
    return request


def acquire(
    game: GameEntry,
    games_dir: str | os.PathLike[str],
    *,
    base_dir: str | os.PathLike[str] | None = None,
    force: bool = False,
    log: IO[str] | None = None,
) -> AcquiredGame:
    """Fetch ``game`` into ``{games_dir}/{game.id}`` (idempotent, atomic) and return it.

    ``base_dir`` resolves relative ``package`` paths of ``local`` games (default: the current
    directory). ``log`` receives the commands run and their output.
    """
    games_dir = Path(games_dir).absolute()  # tools below report absolute paths
    request = request_of(game, base_dir)
    if not force and (existing := _up_to_date(games_dir, game.id, request)) is not None:
        return existing
    handler = _HANDLERS.get(game.source)
    if handler is None:
        raise AcquisitionError(
            f"{game.id}: source {game.source!r} cannot be acquired automatically "
            f"(supported: {', '.join(sorted(_HANDLERS))})"
        )
    # Two processes sharing a games cache (two workflow runs, test sessions side by side) must
    # not both fetch a game: the second would move the first's files away while it plays them.
    # The second waits, then finds the game acquired.
    try:
        with exclusive_lock(games_dir / f".{game.id}.lock", wait_s=ACQUIRE_LOCK_WAIT_S):
            if not force and (existing := _up_to_date(games_dir, game.id, request)) is not None:
                return existing
            return _fetch(game, games_dir, request, handler, base_dir, log)
    except ShardBusy as busy:  # the lock's own message speaks of shards
        holder = busy.owner.describe() if busy.owner else "another process"
        raise AcquisitionError(
            f"{game.id}: {holder} has been acquiring it into {games_dir} for over "
            f"{ACQUIRE_LOCK_WAIT_S:g} s ({busy.lock_path})"
        ) from None


def _up_to_date(games_dir: Path, game_id: str, request: dict[str, Any]) -> AcquiredGame | None:
    """The acquired game if its manifest answers ``request`` (same row, same manifest format)."""
    with contextlib.suppress(AcquisitionError, OSError, ValueError):
        existing = load_acquired(games_dir, game_id)
        manifest = existing.manifest
        if manifest.get("request") == request and (
            manifest.get("manifest_version") == MANIFEST_VERSION
        ):
            return existing
    return None


def _fetch(
    game: GameEntry,
    games_dir: Path,
    request: dict[str, Any],
    handler: Any,
    base_dir: str | os.PathLike[str] | None,
    log: IO[str] | None,
) -> AcquiredGame:
    """Fetch ``game`` into a staging folder and move it into place (the caller holds its lock)."""
    root = game_root(games_dir, game.id)
    started = time.monotonic()
    with _staging(games_dir, game.id) as stage:
        files = stage / FILES
        files.mkdir()
        result = handler(game, stage, files, Path(base_dir or Path.cwd()), log)
        page = game.options.get("page")
        if page:
            write_page(files, page)
        manifest = {
            "manifest_version": MANIFEST_VERSION,
            "game": game.id,
            "request": request,
            "source": game.source,
            "package": game.package,
            "version": result.get("version"),
            "packages": result.get("packages", []),
            "python": result.get("python"),
            "dependencies": result.get("dependencies", []),
            "host_packages": result.get("host_packages", {}),
            "unresolved_dependencies": result.get("unresolved_dependencies", []),
            "layers": result.get("layers", []),
            "triggers": result.get("triggers", []),  # dpkg triggers acquisition ran itself
            "metadata": result.get("metadata", {}),
            "files_sha256": tree_sha256(files),
            **({"triage": result["triage"]} if "triage" in result else {}),
            "acquire_s": round(time.monotonic() - started, 3),
        }
        write_json_atomic(stage / MANIFEST, manifest)
        _install(stage, root)
    return AcquiredGame(game.id, root, manifest)


@contextlib.contextmanager
def _staging(games_dir: Path, game_id: str) -> Iterator[Path]:
    stage = Path(tempfile.mkdtemp(prefix=f".{game_id}.tmp-", dir=games_dir))
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _install(stage: Path, root: Path) -> None:
    """Move the staged trees (``files``, ``deps``) and manifest into ``root``; the manifest lands
    last."""
    root.mkdir(parents=True, exist_ok=True)
    (root / MANIFEST).unlink(missing_ok=True)
    old = Path(tempfile.mkdtemp(prefix=f".{root.name}.old-", dir=root.parent))
    for tree in (FILES, DEPS):
        if (root / tree).exists():
            os.replace(root / tree, old / tree)
        if (stage / tree).exists():
            os.replace(stage / tree, root / tree)
    os.replace(stage / MANIFEST, root / MANIFEST)
    shutil.rmtree(old, ignore_errors=True)


#: The fetcher of each source: it fills ``files`` and returns what it fetched.
_HANDLERS = {
    "debian": acquire_debian,
    "pypi": acquire_pypi,
    "npm": acquire_npm,
    "local": acquire_local,
    "itch": acquire_archive,
    "pyweek": acquire_archive,
}
