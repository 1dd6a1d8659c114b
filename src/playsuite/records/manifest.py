"""Shard manifests: the one file a play (or judge) shard job declares as its output.

A shard job plays many games; declaring one Snakemake output per game would put a job per game
in the DAG (hundreds of thousands at paper scale). Instead each shard writes a manifest listing
every episode it owns and how it ended; the episode directories beside it are the data. The
manifest is written atomically after the last episode, so its presence means the shard is done.

- play shard (``results/runs/{corpus}/{preset}/{condition}/shards/{shard}.tsv``): one
  :class:`EpisodeSummary` per game;
- judge shard: one :class:`JudgedEpisode` per episode judged.

Both are TSV with a ``format`` column (:data:`MANIFEST_FORMAT`), read back checked.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from playsuite.records.tsv import number, read_rows, write_rows

#: Version of both manifests this code writes (and the newest it reads).
MANIFEST_FORMAT = 1
#: Longest error message a manifest keeps (the episode's meta.json has all of it).
MAX_ERROR = 500


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())[:MAX_ERROR]


@dataclass(frozen=True)
class EpisodeSummary:
    """One line of a play shard manifest: how the game's episode ended."""

    game: str
    status: str
    steps: int
    frames: int
    t_game: float
    wall_s: float
    invalid_rate: float
    episode_dir: str
    error: str = ""

    @classmethod
    def from_meta(
        cls, game: str, meta: Mapping[str, Any], episode_dir: str | os.PathLike[str]
    ) -> EpisodeSummary:
        """The line of an episode from its ``meta.json`` (playsuite.records.episode)."""
        return cls(
            game=game,
            status=str(meta.get("status", "")),
            steps=int(meta.get("steps", 0)),
            frames=int(meta.get("frames", 0)),
            t_game=float(meta.get("t_game", 0.0)),
            wall_s=float(meta.get("wall_s", 0.0)),
            invalid_rate=float(meta.get("invalid_rate", 0.0)),
            episode_dir=str(episode_dir),
            error=str(meta.get("error") or ""),
        )


COLUMNS = tuple(f.name for f in fields(EpisodeSummary))
#: Columns a play manifest must have; ``error`` is optional (older manifests lack it).
REQUIRED = tuple(c for c in COLUMNS if c != "error")


def write_manifest(path: str | os.PathLike[str], rows: Iterable[EpisodeSummary]) -> None:
    """Write a play shard manifest, one line per game in game order, atomically."""
    ordered = sorted(rows, key=lambda r: r.game)
    data = [{**asdict(r), "error": _one_line(r.error)} for r in ordered]
    write_rows(path, COLUMNS, data, MANIFEST_FORMAT)


def read_manifest(path: str | os.PathLike[str]) -> list[EpisodeSummary]:
    """A play shard manifest, checked: columns, numbers and format (RecordError naming it)."""
    rows = []
    for raw in read_rows(path, REQUIRED, MANIFEST_FORMAT, "play shard manifest"):
        rows.append(
            EpisodeSummary(
                game=raw["game"],
                status=raw["status"],
                steps=number(path, raw, "steps", int),
                frames=number(path, raw, "frames", int),
                t_game=number(path, raw, "t_game", float),
                wall_s=number(path, raw, "wall_s", float),
                invalid_rate=number(path, raw, "invalid_rate", float),
                episode_dir=raw["episode_dir"],
                error=raw.get("error") or "",
            )
        )
    return rows


def manifest_episodes(path: str | os.PathLike[str]) -> list[str]:
    """Episode directories a play shard manifest lists: its ``episode_dir`` column, else the
    game's folder beside the ``shards/`` folder (only ``game`` is required here)."""
    run_dir = Path(path).parent.parent
    rows = read_rows(path, ("game",), MANIFEST_FORMAT, "play shard manifest")
    return [row.get("episode_dir") or str(run_dir / row["game"]) for row in rows]


@dataclass(frozen=True)
class JudgedEpisode:
    """One line of a judge shard manifest: the judgement of one episode.

    ``level`` is empty when the judge gave none; ``judgement`` is the judgement file.
    """

    game: str
    status: str
    level: str
    judgement: str
    episode_dir: str
    error: str = ""


JUDGE_COLUMNS = tuple(f.name for f in fields(JudgedEpisode))


def judged_episode(
    episode_dir: str | os.PathLike[str], judgement_file: str | os.PathLike[str], obj: Mapping
) -> JudgedEpisode:
    """The line of an episode from its judgement ``obj`` (read from ``judgement_file``)."""
    level = obj.get("level")
    return JudgedEpisode(
        game=Path(episode_dir).name,
        status=str(obj["status"]),
        level="" if level is None else str(level),
        judgement=str(judgement_file),
        episode_dir=str(episode_dir),
        error=_one_line(obj.get("error")),
    )


def write_judge_manifest(path: str | os.PathLike[str], rows: Iterable[JudgedEpisode]) -> None:
    """Write a judge shard manifest in the order given, atomically."""
    write_rows(path, JUDGE_COLUMNS, [asdict(r) for r in rows], MANIFEST_FORMAT)


def read_judge_manifest(path: str | os.PathLike[str]) -> list[dict[str, str]]:
    """A judge shard manifest's lines as text (column -> value), its columns and format checked;
    ``level`` is checked to be empty or a whole number."""
    rows = read_rows(path, JUDGE_COLUMNS, MANIFEST_FORMAT, "judge shard manifest")
    for row in rows:
        if row["level"] != "":
            number(path, row, "level", int)
    return rows
