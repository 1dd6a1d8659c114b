"""A tiny scripted game rendered into a real episode directory (mp4 via PyAV, trace, meta).

It stands in for the harness's recordings while both are built: the video follows the harness's
contract (frame k shows game time k/fps; actions of a step at ``t_game`` act on frames after it),
and the trace carries ``probes`` the way the runtimes record them.

The game: a title screen until Enter, then a red square on a green field. left/right move it
(160 px/s while held, 0.5 s for a tap), space makes it jump for 1.5 s and scores 10 points, the
right edge leads to a second, purple area. A yellow bar at the top shows the score.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from playsuite.files import write_text_atomic
from playsuite.harness.recorder import VideoWriter
from playsuite.records.episode import TRACE_NAME, VIDEO_NAME, trace_line, write_meta

W, H = 640, 480
SPEED = 160.0


@dataclass
class _State:
    title: bool = True
    x: float = 40.0
    area: int = 1
    score: int = 0
    jump_until: float = -1.0
    move_until: float = -1.0
    direction: int = 0

    def probes(self) -> dict[str, Any]:
        return {"score": self.score, "level": self.area, "game_over": False}


def _apply(state: _State, actions: list[dict[str, Any]], t: float) -> None:
    for action in actions:
        keys = action.get("keys", [])
        if action["kind"] not in ("key", "hold"):
            continue
        if state.title:
            if "enter" in keys:
                state.title = False
            continue
        seconds = float(action.get("seconds", 0.5))
        if "right" in keys or "left" in keys:
            state.direction = 1 if "right" in keys else -1
            state.move_until = t + seconds
        if "space" in keys:
            state.jump_until = t + 1.5
            state.score += 10


def _advance(state: _State, t0: float, t1: float) -> None:
    if state.title:
        return
    moving = max(0.0, min(t1, state.move_until) - t0)
    state.x = min(max(state.x + state.direction * SPEED * moving, 0.0), W - 40.0)
    if state.x >= W - 60 and state.area == 1:
        state.area, state.x = 2, 40.0


def _render(state: _State, t: float) -> np.ndarray:
    frame = np.empty((H, W, 3), np.uint8)
    if state.title:
        frame[:] = (20, 20, 90)
        frame[150:250, 170:470] = (240, 240, 240)
        frame[300:320, 250:390] = (200, 200, 60)
        return frame
    if state.area == 1:
        frame[:] = (40, 140, 40)
        frame[400:] = (90, 60, 30)
    else:
        frame[:] = (120, 40, 130)
        frame[::40] = (200, 120, 210)
        frame[400:] = (60, 60, 60)
    y = 360 - (80 if t < state.jump_until else 0)
    x = int(state.x)
    frame[y : y + 40, x : x + 40] = (220, 30, 30)
    frame[10:30, 10 : 10 + 4 * state.score] = (250, 220, 0)
    return frame


@dataclass
class Script:
    """What the scripted agent does: ``steps`` maps a step's game time to its actions."""

    seconds: float = 24.0
    fps: float = 10.0
    steps: dict[float, list[dict[str, Any]]] = field(default_factory=dict)
    probes: bool = True
    meta: dict[str, Any] = field(default_factory=dict)


def playing_script() -> Script:
    """Leaves the title at 3 s, moves right into area 2 (~10.4 s), jumps/scores at 12 s and 18 s."""
    hold = lambda key: [{"kind": "hold", "keys": [key], "seconds": 2.0}]  # noqa: E731
    tap = lambda key: [{"kind": "key", "keys": [key]}]  # noqa: E731
    return Script(
        steps={
            0.0: [{"kind": "wait"}],
            3.0: tap("enter"),
            6.0: hold("right"),
            9.0: hold("right"),
            12.0: tap("space"),
            15.0: [{"kind": "hold", "keys": ["left"], "seconds": 1.0}],
            18.0: tap("space"),
            21.0: tap("z"),
        }
    )


def idle_script(seconds: float = 24.0) -> Script:
    """An agent that only waits: the title screen never goes away."""
    return Script(seconds=seconds, steps={t: [{"kind": "wait"}] for t in np.arange(0, seconds, 3)})


def write_episode(path: str | Path, script: Script, **meta: Any) -> Path:
    """Render ``script`` into an episode directory at ``path`` and return it."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    state = _State()
    step_times = sorted(script.steps)
    trace: list[dict[str, Any]] = []
    n_frames = round(script.seconds * script.fps)

    def frames():
        pending = list(step_times)
        prev = 0.0
        for k in range(n_frames):
            t = k / script.fps
            while pending and pending[0] < t:  # actions at t_game act on later frames
                ts = pending.pop(0)
                _advance(state, prev, ts)
                prev = ts
                trace.append(_trace_line(len(trace), ts, script, state))
                _apply(state, script.steps[ts], ts)
            _advance(state, prev, t)
            prev = t
            yield _render(state, t)

    # The harness's own writer: the same codec settings and keyframe layout as real episodes.
    writer = VideoWriter(path / VIDEO_NAME, script.fps)
    for frame in frames():
        writer.add(frame)
    writer.close()
    write_text_atomic(path / TRACE_NAME, "".join(trace_line(line) for line in trace))
    info = {
        "status": "ok",
        "error": None,
        "seed": 0,
        "steps": len(trace),
        "frames": n_frames,
        "fps": script.fps,
        **script.meta,
        **meta,
    }
    write_meta(path, info)  # checked like the harness's (no format: a hand-made episode)
    return path


def _trace_line(n: int, t: float, script: Script, state: _State) -> dict[str, Any]:
    line: dict[str, Any] = {
        "step": n,
        "t_game": t,
        "frame": round(t * script.fps),
        "response": json.dumps(script.steps[t]),
        "actions": script.steps[t],
        "invalid": False,
        "latency_s": 0.0,
    }
    if script.probes:
        line["probes"] = state.probes()
    return line
