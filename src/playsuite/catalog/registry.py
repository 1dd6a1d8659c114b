"""Registry sources in the curation steps: ingest of an index with its snapshot, and triage.

A registry game (Debian today; see ``REGISTRY_SOURCES``) differs from a dump's game in two
places. It has no archive to fetch and scan: its ``package`` is the registry's name, fetched by
the runtimes' acquisition (apt verifies the signed index, so nothing is quarantined), and its
triage row records that instead of a scan -- the manual ``triage`` exclusions still apply. And its
index changes daily, so the ingest writes ``snapshot.json`` (what was read, when, with hashes) and
the excerpt of the index the records came from; naming that excerpt as the corpus's index later
reproduces the same records.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from playsuite.catalog.debian_index import GenreTable, read_debian, snapshot_entry, write_excerpt
from playsuite.catalog.filters import ArchiveFacts, ManualExclusion, archive_exclusion
from playsuite.catalog.ingest import REGISTRY_SOURCES, RawGame
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
) -> list[RawGame]:
    """Read the registry indexes of a corpus (``{"debian": "apt" | path}``), write the excerpt
    and ``snapshot.json`` (which also pins the dump files by hash), return the records."""
    games: list[RawGame] = []
    entries: dict[str, Any] = {
        source: {"dump": path, "sha256": _file_sha256(path)} for source, path in dumps.items()
    }
    text = ""
    for source, location in indexes.items():
        if source != "debian":
            raise ValueError(f"unknown registry source {source!r}; known: debian")
        found, text = read_debian(location, GenreTable.load(debtag_genres))
        games.extend(found)
        entries[source] = snapshot_entry(location, text, excerpt)
    write_excerpt(text, excerpt)
    write_json_atomic(snapshot, {"sources": entries})
    return games
