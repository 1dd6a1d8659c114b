"""A Gymnasium ``Env`` over any runtime, for using the games outside the benchmark.

Observation: the current frame (H×W×3 uint8). Action: a list of canonical actions (JSON dicts
or :mod:`playsuite.actions` objects), or with ``standard_actions`` one point of the standard
``Dict`` space of :mod:`playsuite.actions.gym_space`; each ``step`` advances game time by
``step_seconds``. Info: game time, probes, and the video frames the step produced. Reward is 0:
the games have no common reward; with ``reward_probe`` (a numeric probe such as ``score``) it is
that probe's increase over the step. A game that quits, crashes or hangs ends the episode
(``terminated``) with its status in ``info``, it never raises.

The benchmark's own episode loop (playsuite.harness.episode) plays through this env too: it
passes its runtime factory and its :class:`RuntimeOptions` (the same object, whose waits it
tightens as the episode's wall-clock time runs out) instead of a game folder.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from playsuite.actions import Action, action_from_dict, gym_space
from playsuite.corpus import GameEntry
from playsuite.runtimes.base import GameFailure, Runtime, RuntimeOptions
from playsuite.runtimes.factory import make_runtime

RuntimeFactory = Callable[[GameEntry, RuntimeOptions], Runtime]


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
    """``GameEnv(game, game_dir)``: one sandboxed game; ``reset`` (re)starts it.

    ``GameEnv(game, runtime_options=options, make_runtime=factory)`` plays with the caller's
    options as they are (their workdir, game folder and seed) and its own runtime factory.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"]}

    def __init__(
        self,
        game: GameEntry,
        game_dir: str | Path | None = None,
        *,
        step_seconds: float = 1.0,
        workdir: str | Path | None = None,
        runtime_options: RuntimeOptions | None = None,
        make_runtime: RuntimeFactory = make_runtime,
        standard_actions: bool = False,
        reward_probe: str | None = None,
        on_close: Callable[[], None] | None = None,
        **options: Any,
    ) -> None:
        if (game_dir is None) == (runtime_options is None):
            raise ValueError("give either game_dir or runtime_options")
        self.game = game
        self.runtime_options = runtime_options
        self.step_seconds = step_seconds
        self._own_workdir = workdir is None and runtime_options is None
        if runtime_options is not None:
            self.game_dir, self.workdir = runtime_options.game_dir, runtime_options.workdir
        else:
            self.game_dir = Path(game_dir)  # type: ignore[arg-type]
            self.workdir = Path(workdir or tempfile.mkdtemp(prefix=f"playsuite-{game.id}-"))
        self.options = options
        self.make_runtime = make_runtime
        self.runtime: Runtime | None = None
        self._prepared: Runtime | None = None
        self._frame: np.ndarray | None = None
        size = game.screen_size or (800, 600)
        self.observation_space = gym.spaces.Box(0, 255, (size[1], size[0], 3), np.uint8)
        self.standard_actions = standard_actions
        self.action_space = gym_space.action_space() if standard_actions else ActionList()
        self.reward_probe = reward_probe
        self._on_close = on_close  # releases what the env's maker shares (called once)
        self._score: float | None = None
        self.render_mode = "rgb_array"
        # render() shows the frame each step ends on
        self.metadata = {**self.metadata, "render_fps": 1.0 / step_seconds}

    def prepare(self, seed: int | None = None) -> Runtime:
        """Build (not start) the runtime the next :meth:`reset` starts.

        Optional: ``reset`` builds one itself. A caller that must tell a runtime that cannot
        even be built (a bug, an unknown runtime) from a game that fails to start calls this
        first: its errors are raised here, before any game runs.
        """
        self._stop()
        if self.runtime_options is not None:
            opts = self.runtime_options
            if seed is not None:
                opts.seed = seed
        else:
            run = self.workdir / f"run-{seed if seed is not None else 0}"
            shutil.rmtree(run, ignore_errors=True)
            run.mkdir(parents=True)
            opts = RuntimeOptions(
                workdir=run, game_dir=self.game_dir, seed=seed or 0, **self.options
            )
        self._prepared = self.make_runtime(self.game, opts)
        return self._prepared

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if self.runtime is not None:  # the previous episode's game
            self.runtime.close()
            self.runtime = None
        if self._prepared is None:
            self.prepare(seed)
        self.runtime, self._prepared = self._prepared, None
        assert self.runtime is not None
        try:
            obs = self.runtime.start()
        except GameFailure:
            self._stop()
            raise
        # The frame's size, not the declared screen: a game may resize or be clipped.
        height, width = obs.frame.shape[:2]
        self.observation_space = gym.spaces.Box(0, 255, (height, width, 3), np.uint8)
        self._frame = obs.frame
        self._score = self._probe_score(obs.probes)
        return obs.frame, {"t_game": obs.t_game, "probes": obs.probes, "status": "ok"}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """One slice of ``step_seconds`` game time. A game failure ends the episode: ``info``
        then says ``status``, ``error`` and ``failed_in`` (``"act"``: ``frames`` are the part of
        the slice the game produced before it failed; ``"observe"``: the whole slice). Any other
        error is raised; when the slice itself was played, it carries its frames as
        ``slice_frames``."""
        return self._slice(self._decode(action), self.step_seconds)

    def advance(self, seconds: float) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Let ``seconds`` of game time pass with no new input, like a step of nothing; the
        real-time protocol (playsuite.harness.protocol) plays a model's thinking time so."""
        return self._slice([], seconds)

    def _slice(
        self, actions: list[Action], seconds: float
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.runtime is None:
            raise RuntimeError("call reset() first")
        failed_in = "act"
        frames: list[np.ndarray] = []
        try:
            frames = self.runtime.act(actions, seconds)
            failed_in = "observe"
            obs = self.runtime.observe()
        except GameFailure as exc:
            if failed_in == "act":
                frames = list(exc.frames)
            if frames:
                self._frame = frames[-1]
            info = {
                "status": str(exc.status),
                "error": str(exc),
                "frames": frames,
                "failed_in": failed_in,
            }
            self._stop()
            assert self._frame is not None
            return self._frame, 0.0, True, False, info
        except Exception as exc:
            # Not the game's failure but ours (a bug): raised as it is, with the frames of a
            # slice the game did play attached, so the caller can still keep that evidence.
            if failed_in == "observe":
                exc.slice_frames = frames  # type: ignore[attr-defined]
            raise
        self._frame = obs.frame
        info = {"t_game": obs.t_game, "probes": obs.probes, "frames": frames, "status": "ok"}
        return obs.frame, self._reward(obs.probes), False, False, info

    def _decode(self, action: Any) -> list[Action]:
        if not self.standard_actions:
            return _actions(action)
        assert self._frame is not None
        height, width = self._frame.shape[:2]
        return [gym_space.decode(action, width, height)]

    def _probe_score(self, probes: dict[str, Any]) -> float | None:
        value = probes.get(self.reward_probe) if self.reward_probe else None
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value)

    def _reward(self, probes: dict[str, Any]) -> float:
        """The reward probe's increase since the last step; 0 while it has no number (e.g. in
        a menu), and on the step it first has one again (a score shown is not a score earned)."""
        score, before = self._probe_score(probes), self._score
        self._score = score
        if score is None or before is None:
            return 0.0
        return score - before

    def probes(self) -> dict[str, Any]:
        """The game's declared probes now (empty when no game runs); raises
        :class:`GameFailure` if the game fails to answer."""
        return self.runtime.probes() if self.runtime is not None else {}

    def render(self) -> np.ndarray | None:
        return self._frame

    def _stop(self) -> None:
        if self._prepared is not None:
            self._prepared.close()
            self._prepared = None
        if self.runtime is not None:
            self.runtime.close()
            self.runtime = None

    def close(self) -> None:
        self._stop()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()
