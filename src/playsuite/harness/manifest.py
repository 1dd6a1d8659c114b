"""Shard manifests: the one file a play (or judge) shard job declares as its output.

A shard job plays many games; declaring one Snakemake output per game would put a job per game
in the DAG (hundreds of thousands at paper scale). Instead each shard writes a manifest listing
every episode it owns and how it ended; the episode directories beside it are the data. The
manifest is written atomically after the last episode, so its presence means the shard is done.
"""

from __future__ import annotations

import csv
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from playsuite.files import atomic_open


@dataclass(frozen=True)
class EpisodeSummary:
    """One line of a shard manifest."""

    game: str
    status: str
    steps: int
    frames: int
    t_game: float
    wall_s: float
    invalid_rate: float
    episode_dir: str
    error: str = ""


COLUMNS = tuple(f.name for f in fields(EpisodeSummary))


def write_manifest(path: str | Path, rows: list[EpisodeSummary]) -> None:
    with atomic_open(path) as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        for row in sorted(rows, key=lambda r: r.game):
            data = asdict(row)
            data["error"] = " ".join(str(data["error"]).split())[:500]
            writer.writerow(data)


def read_manifest(path: str | Path) -> list[EpisodeSummary]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = []
        for raw in csv.DictReader(fh, delimiter="\t"):
            rows.append(
                EpisodeSummary(
                    game=raw["game"],
                    status=raw["status"],
                    steps=int(raw["steps"]),
                    frames=int(raw["frames"]),
                    t_game=float(raw["t_game"]),
                    wall_s=float(raw["wall_s"]),
                    invalid_rate=float(raw["invalid_rate"]),
                    episode_dir=raw["episode_dir"],
                    error=raw.get("error") or "",
                )
            )
        return rows
