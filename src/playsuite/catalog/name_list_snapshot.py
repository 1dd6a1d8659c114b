"""The snapshot of a name-list registry read (PyPI, npm): which candidates were looked up and
what the lookups returned, pinned so a later ingest reproduces the records with no network.

Both registries read the same way (a long name list, a word prefilter, a seeded sample of the
candidates, one cached lookup each); this module owns the parts of that read they share: the
sample, the snapshot's header, its line in ``snapshot.json`` and its atomic write.
"""

from __future__ import annotations

import hashlib
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from playsuite.files import write_text_atomic


def sample(candidates: list[str], lookups: int, seed: int) -> list[str]:
    """At most ``lookups`` candidates (0: all), chosen by ``seed``, in the name list's order."""
    if not lookups or len(candidates) <= lookups:
        return candidates
    order = {name: i for i, name in enumerate(candidates)}
    return sorted(random.Random(seed).sample(candidates, lookups), key=order.__getitem__)


def header(
    fmt: str,
    location: str | Path,
    *,
    names: int,
    candidates: int,
    counts: dict[str, Any],
    lookups: int,
    seed: int,
) -> dict[str, Any]:
    """The snapshot's fields beside its items: format, when, which name list (and its hash),
    the counts of each step and the sample's settings."""
    return {
        "format": fmt,
        "read_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "names": str(location),
        "names_sha256": hashlib.sha256(Path(location).read_bytes()).hexdigest(),
        "counts": {"names": names, "candidates": candidates, **counts},
        "sample": {"lookups": lookups, "seed": seed},
    }


def _text(snapshot: dict[str, Any]) -> str:
    return json.dumps(snapshot, indent=1, sort_keys=True)  # sorted: same content, same hash


def snapshot_entry(
    location: str | Path, snapshot: dict[str, Any], path: str | Path, items: str
) -> dict[str, Any]:
    """What ``snapshot.json`` records of the read: where from, when, the number of ``items``
    (``projects``, ``packages``), counts, the hash of the snapshot written at ``path``."""
    return {
        "index": str(location),
        "read_at": snapshot.get("read_at", ""),
        "excerpt": str(path),
        "excerpt_sha256": hashlib.sha256(_text(snapshot).encode()).hexdigest(),
        items: len(snapshot.get(items) or ()),
        "counts": snapshot.get("counts", {}),
    }


def write_snapshot(snapshot: dict[str, Any], path: str | Path) -> None:
    """Write the snapshot atomically, in the text ``snapshot_entry`` hashes."""
    write_text_atomic(path, _text(snapshot))
