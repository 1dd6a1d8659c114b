"""An episode directory as the judges see it: its metadata, its steps in game time, its video.

The files and their checks are the contract of playsuite.records.episode (``meta.json``,
``trace.jsonl``, ``episode.mp4``); this module keeps what the judges use of them. ``status`` in
``meta.json`` says whether the run counts (``ok``) and why not; each step's ``probes`` (games that
declare probes) are the values read from the game right after the step's observation.

The episode's coordinates (corpus, preset, condition, game) come from ``meta.json`` when it names
them, else from the directory path ``results/runs/{corpus}/{preset}/{condition}/{game}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playsuite.records import episode as record
from playsuite.records.episode import (
    META_NAME,
    TRACE_NAME,
    VIDEO_NAME,
    CorruptEpisode,
    EpisodeError,
    EpisodeMeta,
    TraceStep,
    read_meta,
)

META = META_NAME
TRACE = TRACE_NAME
VIDEO = VIDEO_NAME
#: The judges' names for what playsuite.records.episode defines.
__all__ = [
    "META",
    "TRACE",
    "VIDEO",
    "CorruptEpisode",
    "Episode",
    "EpisodeError",
    "Step",
    "load_episode",
    "read_meta",
    "read_trace",
]


@dataclass(frozen=True)
class Step:
    """One agent step of the trace, with only what the judges use."""

    step: int
    t_game: float
    actions: tuple[dict[str, Any], ...]
    invalid: bool = False
    probes: dict[str, Any] = field(default_factory=dict)
    #: The game's launch the step belongs to (``reset_on_fail`` episodes; 0 otherwise) and, on
    #: the step after which that launch's game was over, the probes read then.
    attempt: int = 0
    end_probes: dict[str, Any] | None = None

    @property
    def effective_actions(self) -> tuple[dict[str, Any], ...]:
        """Actions that send input to the game (everything except ``wait`` and ``invalid``)."""
        return tuple(a for a in self.actions if a.get("kind") not in ("wait", "invalid"))


@dataclass(frozen=True)
class Episode:
    """An episode directory: metadata, trace and the video's path."""

    path: Path
    meta: EpisodeMeta
    steps: tuple[Step, ...]

    @property
    def video_path(self) -> Path:
        return self.path / VIDEO

    @property
    def has_video(self) -> bool:
        return self.video_path.is_file() and self.video_path.stat().st_size > 0

    @property
    def status(self) -> str:
        return str(self.meta.get("status", "ok"))

    def coordinate(self, name: str) -> str:
        """``corpus``, ``preset``, ``condition`` or ``game`` of this episode."""
        order = ("corpus", "preset", "condition", "game")
        if name not in order:
            raise KeyError(name)
        if self.meta.get(name):
            return str(self.meta[name])
        parts = self.path.resolve().parts
        if len(parts) < 4:
            raise EpisodeError(f"{self.path}: meta.json does not name the {name}")
        return parts[len(parts) - 4 + order.index(name)]

    @property
    def has_probes(self) -> bool:
        return any(s.probes for s in self.steps)


def _step(obj: TraceStep) -> Step:
    return Step(
        step=int(obj.get("step", 0)),
        t_game=float(obj["t_game"]),
        actions=tuple(obj.get("actions") or ()),
        invalid=bool(obj.get("invalid", False)),
        probes=obj.get("probes") or {},
        attempt=int(obj.get("attempt", 0)),
        end_probes=(obj.get("attempt_end") or {}).get("probes"),
    )


def read_trace(path: str | Path) -> tuple[Step, ...]:
    """The trace's steps in order of game time; an absent trace is an empty one."""
    steps = [_step(obj) for obj in record.read_trace(path)]
    return tuple(sorted(steps, key=lambda s: (s.t_game, s.step)))


def load_episode(path: str | Path) -> Episode:
    """Read ``meta.json`` and ``trace.jsonl`` of an episode directory."""
    path = Path(path)
    if not path.is_dir():
        raise EpisodeError(f"{path}: not an episode directory")
    return Episode(path=path, meta=read_meta(path), steps=read_trace(path))
