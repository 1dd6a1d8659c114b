"""Gymnasium wrappers that make :class:`~playsuite.runtimes.env.GameEnv` a benchmark episode.

The env alone plays a game; the episode loop (playsuite.harness.episode) adds two duties,
each a wrapper so the loop itself only passes frames and actions:

* :class:`WallClock` keeps every wait of the game inside the episode's wall-clock limit. The
  runtime's own limits (a minute to launch, two to finish a slice) are per call: without the
  cut, an episode with a 15 s limit could still spend two minutes inside one hung step.
* :class:`Recording` appends each step's video frames to the episode's recorder, at game time.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from playsuite.harness.recorder import EpisodeRecorder
from playsuite.runtimes.base import RuntimeOptions

#: Shortest launch or slice wait, however little of the episode's wall-clock limit is left.
MIN_WAIT_S = 1.0

Step = tuple[np.ndarray, float, bool, bool, dict[str, Any]]


def bound_waits(options: RuntimeOptions, waits: tuple[float, float], left_s: float | None) -> None:
    """Cut the runtime's launch and slice waits (``waits``: as configured) to ``left_s``.

    The runtime reads its options at each call, so the bound follows the clock.
    """
    launch_s, slice_s = waits
    if left_s is None:
        options.launch_timeout_s, options.slice_timeout_s = launch_s, slice_s
        return
    left_s = max(left_s, MIN_WAIT_S)
    options.launch_timeout_s = min(launch_s, left_s)
    options.slice_timeout_s = min(slice_s, left_s)


class WallClock(gym.Wrapper):
    """Bounds the waits in ``options`` (the env's runtime options) before each reset and step.

    ``limit_s`` (None: no limit) counts from ``started`` (a ``time.perf_counter`` value,
    default now), so time spent before the env (setting up the recording) counts too.
    """

    def __init__(
        self,
        env: gym.Env,
        options: RuntimeOptions,
        limit_s: float | None,
        started: float | None = None,
    ) -> None:
        super().__init__(env)
        self.options = options
        self.limit_s = limit_s
        self.started = time.perf_counter() if started is None else started
        self._waits = (options.launch_timeout_s, options.slice_timeout_s)
        bound_waits(options, self._waits, self.left_s())

    def left_s(self) -> float | None:
        """Wall-clock seconds the episode has left (negative once over; None: no limit)."""
        if self.limit_s is None:
            return None
        return self.limit_s - (time.perf_counter() - self.started)

    def over(self) -> bool:
        left = self.left_s()
        return left is not None and left < 0

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        bound_waits(self.options, self._waits, self.left_s())
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> Step:
        bound_waits(self.options, self._waits, self.left_s())
        return self.env.step(action)

    def advance(self, seconds: float) -> Step:
        """The env's ``advance`` (game time with no input) under the same bound."""
        bound_waits(self.options, self._waits, self.left_s())
        return self.env.advance(seconds)  # type: ignore[attr-defined]


class Recording(gym.Wrapper):
    """Adds each step's frames (``info["frames"]``) to ``recorder``.

    The frames of a slice the game failed in are kept too: they show what happened, and a game
    that dies in its first step would otherwise leave no video at all. Those the recorder cannot
    take (another size) are dropped, since the failure is what counts.
    """

    def __init__(self, env: gym.Env, recorder: EpisodeRecorder) -> None:
        super().__init__(env)
        self.recorder = recorder

    def step(self, action: Any) -> Step:
        return self._recorded(lambda: self.env.step(action))

    def advance(self, seconds: float) -> Step:
        """The wrapped env's ``advance`` (game time with no input), its frames recorded too."""
        return self._recorded(lambda: self.env.advance(seconds))  # type: ignore[attr-defined]

    def _recorded(self, play: Callable[[], Step]) -> Step:
        try:
            result = play()
        except Exception as exc:  # a bug after a played slice: keep what the game showed
            with contextlib.suppress(ValueError):
                self.recorder.add_frames(getattr(exc, "slice_frames", []))
            raise
        info = result[4]
        frames = info.get("frames", [])
        if info.get("failed_in") == "act":
            with contextlib.suppress(ValueError):
                self.recorder.add_frames(frames)
        else:
            self.recorder.add_frames(frames)
        return result
