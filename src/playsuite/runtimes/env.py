"""A Gymnasium ``Env`` over any runtime, for using the games outside the benchmark.

Observation: the current frame (H×W×3 uint8). Action: a list of canonical actions (JSON dicts
or :mod:`playsuite.actions` objects); each ``step`` advances game time by ``step_seconds``.
Info: game time, probes, and the video frames the step produced. Reward is always 0: the games
have no common reward; use probes (e.g. a score) to build one. A game that quits, crashes or
hangs ends the episode (``terminated``) with its status in ``info``, it never raises.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from playsuite.actions import Action, action_from_dict
from playsuite.corpus import GameEntry
from playsuite.runtimes.base import GameFailure, Runtime, RuntimeOptions
from playsuite.runtimes.factory import make_runtime


class ActionList(gym.spaces.Space):
    """The space of canonical action lists (not sampleable: actions are structured text)."""

    def __init__(self) -> None:
        super().__init__(shape=None, dtype=None)

    def contains(self, x: Any) -> bool:
        try:
            _actions(x)
        except (ValueError, TypeError):
            return False
        return True

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, Any]]:
        return [{"kind": "wait"}]


def _actions(value: Any) -> list[Action]:
    items = value if isinstance(value, list | tuple) else [value]
    return [a if not isinstance(a, dict) else action_from_dict(a) for a in items]


class GameEnv(gym.Env):
    """``GameEnv(game, game_dir)``: one sandboxed game; ``reset`` (re)starts it."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"]}

    def __init__(
        self,
        game: GameEntry,
        game_dir: str | Path,
        *,
        step_seconds: float = 1.0,
        workdir: str | Path | None = None,
        **options: Any,
    ) -> None:
        self.game = game
        self.game_dir = Path(game_dir)
        self.step_seconds = step_seconds
        self._own_workdir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix=f"playsuite-{game.id}-"))
        self.options = options
        self.runtime: Runtime | None = None
        self._frame: np.ndarray | None = None
        size = game.screen_size or (800, 600)
        self.observation_space = gym.spaces.Box(0, 255, (size[1], size[0], 3), np.uint8)
        self.action_space = ActionList()
        self.render_mode = "rgb_array"

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._stop()
        run = self.workdir / f"run-{seed if seed is not None else 0}"
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir(parents=True)
        opts = RuntimeOptions(workdir=run, game_dir=self.game_dir, seed=seed or 0, **self.options)
        self.runtime = make_runtime(self.game, opts)
        try:
            obs = self.runtime.start()
        except GameFailure:
            self._stop()
            raise
        w, h = self.runtime.screen_size
        self.observation_space = gym.spaces.Box(0, 255, (h, w, 3), np.uint8)
        self._frame = obs.frame
        return obs.frame, {"t_game": obs.t_game, "probes": obs.probes, "status": "ok"}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.runtime is None:
            raise RuntimeError("call reset() first")
        try:
            frames = self.runtime.act(_actions(action), self.step_seconds)
        except GameFailure as exc:
            frames = list(getattr(exc, "frames", []))
            if frames:
                self._frame = frames[-1]
            info = {"status": str(exc.status), "error": str(exc), "frames": frames}
            self._stop()
            assert self._frame is not None
            return self._frame, 0.0, True, False, info
        obs = self.runtime.observe()
        self._frame = obs.frame
        info = {"t_game": obs.t_game, "probes": obs.probes, "frames": frames, "status": "ok"}
        return obs.frame, 0.0, False, False, info

    def render(self) -> np.ndarray | None:
        return self._frame

    def _stop(self) -> None:
        if self.runtime is not None:
            self.runtime.close()
            self.runtime = None

    def close(self) -> None:
        self._stop()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
