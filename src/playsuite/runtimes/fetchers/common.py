"""What every fetcher of :mod:`playsuite.runtimes.acquire` shares: the error, the tree's layout
names, logged commands, hashes, README lookup and archive unpacking.

Kept apart from the fetchers so that each source's module imports only this and the entry point
(:mod:`playsuite.runtimes.acquire`) imports the fetchers, never the other way round.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path
from typing import IO, Any

from playsuite.archives.extract import ArchiveError, UnsafeArchiveError, safe_extract

MANIFEST = "acquired.json"
FILES = "files"
DEBIAN_PYTHON = "/usr/bin/python3"
VENV = "venv"
DEFAULT_PAGE = "playsuite-page.html"
DOWNLOAD_TIMEOUT_S = 300


class AcquisitionError(RuntimeError):
    """A game could not be fetched or unpacked; the message says which step failed."""


def tree_sha256(path: Path, ignore: tuple[str, ...] = ()) -> str:
    """One hash over every file's relative path and content (symlinks by their target);
    files and folders named in ``ignore`` are left out wherever they are."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if d not in ignore)
        filenames = [f for f in filenames if f not in ignore]
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(Path(dirpath, d))]):
            full = Path(dirpath, name)
            rel = full.relative_to(path).as_posix()
            digest.update(rel.encode() + b"\0")
            if full.is_symlink():
                digest.update(b"->" + os.readlink(full).encode())
            elif full.is_file():
                digest.update(file_sha256(full).encode())
            digest.update(b"\n")
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_logged(cmd: list[str], log: IO[str] | None, *, cwd: Path | None = None) -> str:
    if log is not None:
        log.write(f"$ {' '.join(cmd)}\n")
        log.flush()
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, capture_output=True, text=True, check=False, timeout=900
        )
    except FileNotFoundError:
        raise AcquisitionError(f"{cmd[0]} is not installed (see scripts/setup.sh)") from None
    except subprocess.TimeoutExpired:
        raise AcquisitionError(f"{' '.join(cmd)}: timed out") from None
    if log is not None:
        log.write(proc.stdout)
        log.write(proc.stderr)
        log.flush()
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise AcquisitionError(f"{' '.join(cmd)} failed ({proc.returncode}): {' | '.join(tail)}")
    return proc.stdout


def find_readme(files: Path, candidates: list[Path]) -> str | None:
    for folder in candidates:
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if re.match(r"readme", path.name, re.I) and path.is_file():
                return path.relative_to(files).as_posix()
    return None


def extract_archive(archive: Path, dest: Path) -> None:
    """Unpack with the catalog's extractor (the only one in the package); errors name the file."""
    try:
        safe_extract(archive, dest)
    except (ArchiveError, UnsafeArchiveError) as exc:
        raise AcquisitionError(f"cannot unpack {archive.name}: {exc}") from None


def row_metadata(game: Any, readme: str | None) -> dict[str, Any]:
    """The ``metadata`` block of acquired.json for a game whose only metadata is its corpus row
    (local folders and archives; registry fetchers read theirs from the package)."""
    return {
        "title": game.title,
        "author": game.author,
        "summary": game.description,
        "description": game.description,
        "tags": list(game.tags),
        "readme": readme,
    }
