"""Reading an episode directory (DESIGN.md "Episode directory") for the judges.

The harness writes episodes; every judge reads them through this module only, so the on-disk
format is interpreted in one place:

- ``meta.json``: run metadata; ``status`` says whether the run counts (``ok``) and why not.
- ``trace.jsonl``: one JSON object per agent step with ``step``, ``t_game`` (seconds of game time
  when the step's actions were applied), ``frame``, ``response``, ``actions`` (canonical list),
  ``invalid``, ``latency_s`` and, for games that declare probes, ``probes`` (name -> value read
  from the game right after the step's observation; ``null`` when the expression failed).
- ``episode.mp4``: H.264 video of game time only.

The episode's coordinates (corpus, preset, condition, game) come from ``meta.json`` when it names
them, else from the directory path ``results/runs/{corpus}/{preset}/{condition}/{game}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playsuite.harness.recorder import META_NAME, CorruptEpisode, EpisodeError, read_meta

META = META_NAME
TRACE = "trace.jsonl"
VIDEO = "episode.mp4"


@dataclass(frozen=True)
class Step:
    """One agent step of the trace, with only what the judges use."""

    step: int
    t_game: float
    actions: tuple[dict[str, Any], ...]
    invalid: bool = False
    probes: dict[str, Any] = field(default_factory=dict)

    @property
    def effective_actions(self) -> tuple[dict[str, Any], ...]:
        """Actions that send input to the game (everything except ``wait`` and ``invalid``)."""
        return tuple(a for a in self.actions if a.get("kind") not in ("wait", "invalid"))


@dataclass(frozen=True)
class Episode:
    """An episode directory: metadata, trace and the video's path."""

    path: Path
    meta: dict[str, Any]
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


def _step(obj: Any, file: Path, where: str) -> Step:
    if not isinstance(obj, dict):
        raise CorruptEpisode(file, f"{where}: a trace line must be a JSON object")
    try:
        t_game = float(obj["t_game"])
        actions = obj.get("actions") or []
        if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
            raise CorruptEpisode(file, f"{where}: 'actions' must be a list of objects")
        probes = obj.get("probes") or {}
        if not isinstance(probes, dict):
            raise CorruptEpisode(file, f"{where}: 'probes' must be an object")
        return Step(
            step=int(obj.get("step", 0)),
            t_game=t_game,
            actions=tuple(actions),
            invalid=bool(obj.get("invalid", False)),
            probes=probes,
        )
    except KeyError as exc:
        raise CorruptEpisode(file, f"{where}: missing field {exc}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, EpisodeError):
            raise
        raise CorruptEpisode(file, f"{where}: {exc}") from None


def read_trace(path: str | Path) -> tuple[Step, ...]:
    """The trace's steps in order of game time; an absent trace is an empty one."""
    file = Path(path) / TRACE
    if not file.exists():
        return ()
    steps = []
    try:
        with open(file, encoding="utf-8") as fh:
            lines = fh.readlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CorruptEpisode(file, f"cannot be read: {exc}") from None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorruptEpisode(file, f"line {n}: not JSON: {exc}") from None
        steps.append(_step(obj, file, f"line {n}"))
    return tuple(sorted(steps, key=lambda s: (s.t_game, s.step)))


def load_episode(path: str | Path) -> Episode:
    """Read ``meta.json`` and ``trace.jsonl`` of an episode directory."""
    path = Path(path)
    if not path.is_dir():
        raise EpisodeError(f"{path}: not an episode directory")
    return Episode(path=path, meta=read_meta(path), steps=read_trace(path))
