"""Registry sources in the curation steps: ingest of an index with its snapshot, and triage.

A registry game (Debian, PyPI or npm; see ``REGISTRY_SOURCES``) differs from a dump's game in two
places. It has no archive to fetch and scan: its ``package`` is the registry's name, fetched by
the runtimes' acquisition (apt verifies the signed index, so nothing is quarantined), and its
triage row records that instead of a scan -- the manual ``triage`` exclusions still apply. And its
index changes daily, so the ingest writes ``snapshot.json`` (what was read, when, with hashes) and
the excerpt of the index the records came from (Debian: ``snapshot.Packages``; PyPI:
``snapshot.pypi.json``; npm: ``snapshot.npm.json``); naming that excerpt as the corpus's index
later reproduces the same records.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from playsuite.catalog.debian_index import GenreTable, read_debian, snapshot_entry, write_excerpt
from playsuite.catalog.filters import ArchiveFacts, ManualExclusion, archive_exclusion
from playsuite.catalog.ingest import REGISTRY_SOURCES, RawGame
from playsuite.catalog.name_list_snapshot import snapshot_entry as name_list_entry
from playsuite.catalog.name_list_snapshot import write_snapshot
from playsuite.catalog.npm_evidence import NpmRules
from playsuite.catalog.npm_index import SNAPSHOT_FORMAT as NPM_FORMAT
from playsuite.catalog.npm_index import read_npm
from playsuite.catalog.pypi_index import SNAPSHOT_FORMAT, PypiRules, read_pypi
from playsuite.files import write_json_atomic


def is_registry(game: RawGame) -> bool:
    return game.source in REGISTRY_SOURCES


def registry_triage(game: RawGame, manual: dict[str, ManualExclusion]) -> dict[str, Any]:
    """The triage line of a registry package: not scanned (risk 0, ``clean``), only the
    hand-kept exclusions decide."""
    decision = archive_exclusion(game, ArchiveFacts(0, "clean"), manual)
    return {
        "id": game.id,
        "risk": 0,
        "policy": "clean",
        "signals": [],
        "executables": [],
        "names": [],
        "scanned": False,
        "note": f"{game.source} package {game.source_id} {game.version}: registry-verified",
        "stage": decision.stage,
        "reason": decision.reason,
    }


def _file_sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ingest_indexes(
    indexes: dict[str, str],
    debtag_genres: str | None,
    snapshot: str | Path,
    excerpt: str | Path,
    dumps: dict[str, str],
    pypi: dict[str, Any] | None = None,
    npm: dict[str, Any] | None = None,
) -> list[RawGame]:
    """Read the registry indexes of a corpus (``{"debian": "apt" | path, "pypi": name list |
    snapshot, "npm": name list | snapshot}``), write the excerpts and ``snapshot.json`` (which
    also pins the dump files by hash), return the records. ``pypi``: ``rules``
    (catalog.pypi_rules), ``excerpt`` (default ``snapshot.pypi.json`` beside ``snapshot``;
    look-ups are cached beside it in ``pypi-reports/``) and ``lookups``, the most projects asked
    about (0: no limit). ``npm``: the same keys (catalog.npm_rules, ``snapshot.npm.json``,
    manifests cached in ``npm-manifests/``, catalog.npm_lookups)."""
    pypi, npm = pypi or {}, npm or {}
    pypi_excerpt = pypi.get("excerpt") or Path(snapshot).with_suffix(".pypi.json")
    npm_excerpt = npm.get("excerpt") or Path(snapshot).with_suffix(".npm.json")
    games: list[RawGame] = []
    entries: dict[str, Any] = {
        source: {"dump": path, "sha256": _file_sha256(path)} for source, path in dumps.items()
    }
    text = ""
    pinned: dict[str, Any] = {"format": SNAPSHOT_FORMAT, "projects": []}
    npm_pinned: dict[str, Any] = {"format": NPM_FORMAT, "packages": []}
    for source, location in indexes.items():
        if source == "debian":
            found, text = read_debian(location, GenreTable.load(debtag_genres))
            entries[source] = snapshot_entry(location, text, excerpt)
        elif source == "pypi":
            if not pypi.get("rules"):
                raise ValueError("a pypi source needs its rules (catalog.pypi_rules)")
            cache = Path(pypi_excerpt).parent / "pypi-reports"
            rules = PypiRules.load(pypi["rules"])
            found, pinned = read_pypi(location, rules, cache, int(pypi.get("lookups") or 0))
            entries[source] = name_list_entry(location, pinned, pypi_excerpt, "projects")
        elif source == "npm":
            if not npm.get("rules"):
                raise ValueError("an npm source needs its rules (catalog.npm_rules)")
            cache = Path(npm_excerpt).parent / "npm-manifests"
            rules = NpmRules.load(npm["rules"])
            found, npm_pinned = read_npm(location, rules, cache, int(npm.get("lookups") or 0))
            entries[source] = name_list_entry(location, npm_pinned, npm_excerpt, "packages")
        else:
            raise ValueError(f"unknown registry source {source!r}; known: debian, pypi, npm")
        games.extend(found)
    write_excerpt(text, excerpt)
    write_snapshot(pinned, pypi_excerpt)
    write_snapshot(npm_pinned, npm_excerpt)
    write_json_atomic(snapshot, {"sources": entries})
    return games
