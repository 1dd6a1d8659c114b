"""The runtime contract's checks on a running game, shared by the launch check
(:mod:`playsuite.runtimes.validate`) and the conformance check
(:mod:`playsuite.harness.conformance`).

Each check drives the runtime the way an episode does and either returns what it measured (a
short text) or raises :class:`ContractError` saying what broke. ``processes_left`` finds what a
closed game left running.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from playsuite.runtimes import procs
from playsuite.runtimes.base import Observation, Runtime, frames_per_slice

SLICE_S = 0.5
WAIT_S = 0.5


class ContractError(AssertionError):
    """A runtime broke the contract; the message says how."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise ContractError(message)


def check_launch(runtime: Runtime, first: Observation) -> str:
    """``start``'s observation: an H×W×3 uint8 frame of the screen's size, at game time 0."""
    width, height = runtime.screen_size
    frame = first.frame
    require(frame.shape == (height, width, 3), f"frame {frame.shape} for a {width}x{height} screen")
    require(frame.dtype == np.uint8, f"frame dtype {frame.dtype}")
    require(first.t_game == 0.0, f"first frame at game time {first.t_game}")
    return f"{width}x{height}"


def check_frozen(runtime: Runtime, wait_s: float = WAIT_S) -> str:
    """Between calls the game is paused: wall-clock time moves neither game time nor a pixel."""
    before = runtime.observe()
    time.sleep(wait_s)
    after = runtime.observe()
    moved = after.t_game - before.t_game
    require(moved == 0, f"game time moved by {moved} during a wall-clock wait")
    changed = int(np.count_nonzero(np.any(before.frame != after.frame, axis=-1)))
    require(changed == 0, f"{changed} pixels changed during a {wait_s} s wall-clock wait")
    return f"still after {wait_s} s of wall time"


def check_slice(runtime: Runtime, frames: list[np.ndarray], t0: float, seconds: float) -> str:
    """A slice of ``seconds`` just played from game time ``t0`` gave ``frames``: exactly
    ``frames_per_slice`` of them, game time moved by exactly the slice, and the last frame is
    the paused screen."""
    want = frames_per_slice(seconds, runtime.options.video_fps)
    require(len(frames) == want, f"{len(frames)} frames for a {seconds} s slice, expected {want}")
    after = runtime.observe()
    require(abs(after.t_game - (t0 + seconds)) < 1e-6, f"game time moved {after.t_game - t0} s")
    require(np.array_equal(frames[-1], after.frame), "the last frame is not the paused screen")
    return f"{want} frames, {seconds} s of game time"


def descendants(pid: int, skip: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Processes under ``pid``, not looking under ``skip`` (processes that were running before,
    such as a worker's shared browser, whose helpers come and go on their own)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        try:
            text = Path(f"/proc/{current}/task/{current}/children").read_text()
        except OSError:
            continue
        children = [int(x) for x in text.split() if int(x) not in skip]
        found += children
        queue += children
    return found


def processes_left(before: set[int], timeout_s: float = 5.0) -> set[int]:
    """Processes of ours that were not running at ``before`` (a ``descendants`` snapshot) and
    are still alive (zombies count as gone) after up to ``timeout_s``."""
    alive = set(descendants(os.getpid(), skip=before))
    deadline = time.monotonic() + timeout_s
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = {p for p in alive if procs.alive(p)}
    return alive
