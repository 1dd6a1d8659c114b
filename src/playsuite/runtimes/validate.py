"""Launch validation: does a game render non-blank frames and react to input?

Two short runs from the same seed: one only waits, the other presses a generic input sequence
(or the row's ``options.validate_actions``). The game reacts to input when the runs' frames
differ. Both runs are deterministic for pygame games (virtual clock, seeded random), so a
difference is the input's doing; for runtimes without a seeded clock, a difference can also be
chance, which the result records as ``deterministic: false``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from playsuite.actions import Action, action_from_dict
from playsuite.corpus import GameEntry
from playsuite.runtimes.base import GameFailure, RunStatus, RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.resources import WorkerResources

#: Inputs that start or move most games: confirm, jump/fire, the four arrows, a click.
DEFAULT_ACTIONS: tuple[tuple[dict[str, Any], ...], ...] = (
    ({"kind": "key", "keys": ["enter"]},),
    ({"kind": "key", "keys": ["space"]},),
    ({"kind": "hold", "keys": ["right"], "seconds": 0.5}, {"kind": "key", "keys": ["up"]}),
    ({"kind": "hold", "keys": ["left"], "seconds": 0.5}, {"kind": "key", "keys": ["down"]}),
    ({"kind": "click", "x": 0.5, "y": 0.5},),
)
STEP_S = 1.0


def _steps(game: GameEntry, screen: tuple[int, int]) -> list[list[Action]]:
    raw = game.options.get("validate_actions") or DEFAULT_ACTIONS
    steps = []
    for step in raw:
        actions = []
        for item in step:
            data = dict(item)
            if data.get("kind") == "click" and isinstance(data.get("x"), float):
                data["x"] = int(data["x"] * screen[0])
                data["y"] = int(data["y"] * screen[1])
            actions.append(action_from_dict(data))
        steps.append(actions)
    return steps


def _play(game: GameEntry, options: RuntimeOptions, with_input: bool) -> dict[str, Any]:
    started = time.monotonic()
    with make_runtime(game, options) as rt:
        first = rt.start()
        launch_s = time.monotonic() - started
        frames = [first.frame]
        for actions in _steps(game, rt.screen_size):
            frames += rt.act(actions if with_input else [], STEP_S)
        return {"frames": frames, "launch_s": launch_s, "screen": rt.screen_size}


def _blank(frame: np.ndarray) -> bool:
    return bool((frame == frame.reshape(-1, 3)[0]).all())


def validate_launch(
    game: GameEntry,
    game_dir: Path,
    workdir: Path,
    *,
    resources: WorkerResources | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Play the game twice briefly; a JSON-ready verdict (``ok`` true when it passes).

    ``options`` are :class:`RuntimeOptions` fields; ``resources`` (a browser, a display) are
    shared by the runs instead of each run starting its own.
    """

    def run_options(run_dir: Path) -> RuntimeOptions:
        opts = RuntimeOptions(workdir=run_dir, game_dir=Path(game_dir), **options)
        return resources.options_for(game, opts) if resources is not None else opts

    result: dict[str, Any] = {"game": game.id, "runtime": game.runtime}
    runs = []
    for name, with_input in (("idle", False), ("input", True)):
        run_dir = Path(workdir) / name
        run_dir.mkdir(parents=True, exist_ok=True)
        opts = run_options(run_dir)
        try:
            runs.append(_play(game, opts, with_input))
        except GameFailure as exc:
            result.update(ok=False, status=str(exc.status), error=str(exc), failed_run=name)
            return result
    idle, played = runs
    non_blank = sum(not _blank(f) for f in played["frames"])
    differing = sum(
        not np.array_equal(a, b) for a, b in zip(idle["frames"], played["frames"], strict=False)
    )
    repeat_dir = Path(workdir) / "idle-again"
    repeat_dir.mkdir(parents=True, exist_ok=True)
    repeat_opts = run_options(repeat_dir)
    deterministic = None
    try:
        again = _play(game, repeat_opts, False)
        deterministic = all(
            np.array_equal(a, b) for a, b in zip(idle["frames"], again["frames"], strict=False)
        )
    except GameFailure:
        deterministic = False
    result.update(
        ok=non_blank > 0 and differing > 0,
        status=str(RunStatus.OK),
        screen=list(played["screen"]),
        launch_s=round(idle["launch_s"], 3),
        frames=len(played["frames"]),
        non_blank_frames=non_blank,
        frames_changed_by_input=differing,
        deterministic=deterministic,
    )
    if not result["ok"]:
        result["error"] = "blank frames only" if non_blank == 0 else "no reaction to input"
    return result
