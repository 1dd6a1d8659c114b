"""Launch validation: does a game render non-blank frames and react to input?

Two short runs from the same seed: one only waits, the other presses a generic input sequence
(or the row's ``options.validate_actions``). The game reacts to input when the runs' frames
differ, or when the input made it quit (a click that found its menu's Quit entry). Both runs are
deterministic for pygame games (virtual clock, seeded random), so a difference is the input's
doing; for runtimes without a seeded clock, a difference can also be chance, which the result
records as ``deterministic: false``.

The idle run also checks the runtime contract on the way (:mod:`.contract`: the first
observation, frozen while paused, an exact slice, nothing left running after close): the launch
check is the cheap part of the conformance check (:mod:`playsuite.harness.conformance`).

The runs get what a worker gives the game when it is played (an X display for native and OpenGL
games, a Chromium for pages: :class:`~playsuite.runtimes.resources.WorkerResources`), so a game
that plays also passes here.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from playsuite.actions import Action, action_from_dict
from playsuite.corpus import GameEntry
from playsuite.runtimes.base import GameExited, GameFailure, RunStatus, RuntimeOptions
from playsuite.runtimes.contract import (
    ContractError,
    check_frozen,
    check_launch,
    check_slice,
    descendants,
    processes_left,
    require,
)
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.resources import WorkerResources

#: Where the last step clicks, as fractions of the screen: the centre, then down the centre
#: column and the columns at a quarter and three quarters, where menus put their buttons. A menu
#: that only answers the mouse reacts to one of them; the 16 clicks take 0.96 s of the step.
CLICK_GRID: tuple[tuple[float, float], ...] = (
    (0.5, 0.5),
    *((x, y) for x in (0.5, 0.25, 0.75) for y in (0.35, 0.45, 0.55, 0.65, 0.75)),
)

#: Inputs that start or move most games: confirm, jump/fire, the four arrows, the confirm keys
#: of retro-style games, then clicks over the screen (one step of game time each).
DEFAULT_ACTIONS: tuple[tuple[dict[str, Any], ...], ...] = (
    ({"kind": "key", "keys": ["enter"]},),
    ({"kind": "key", "keys": ["space"]},),
    ({"kind": "hold", "keys": ["right"], "seconds": 0.5}, {"kind": "key", "keys": ["up"]}),
    ({"kind": "hold", "keys": ["left"], "seconds": 0.5}, {"kind": "key", "keys": ["down"]}),
    ({"kind": "key", "keys": ["z"]}, {"kind": "key", "keys": ["x"]}),
    tuple({"kind": "click", "x": x, "y": y} for x, y in CLICK_GRID),
)
STEP_S = 1.0
CONTRACT_ERROR = "runtime contract: "  # how a verdict's error names a broken contract check


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


def _play(
    game: GameEntry, options: RuntimeOptions, with_input: bool, contract: dict[str, str] | None
) -> dict[str, Any]:
    """One run: its frames; a clean quit ends the run (``exited``) with the frames before it.

    With ``contract`` (a dict to fill), the run also checks the runtime contract on the way
    (:mod:`.contract`: the first observation, frozen while paused, the first step's slice, no
    process left after closing) and raises :class:`ContractError` when the game breaks it.
    """
    if options.browser is not None:
        _ = options.browser.browser  # the worker's Chromium starts before the snapshot
    before = set(descendants(os.getpid()))
    started = time.monotonic()
    with make_runtime(game, options) as rt:
        first = rt.start()
        launch_s = time.monotonic() - started
        if contract is not None:
            contract["launch"] = check_launch(rt, first)
            contract["frozen"] = check_frozen(rt)
        frames = [first.frame]
        exited = False
        for actions in _steps(game, rt.screen_size):
            t0 = rt.observe().t_game
            try:
                step = rt.act(actions if with_input else [], STEP_S)
            except GameExited as exc:
                if not with_input:
                    raise  # quitting with nobody playing is a failure of the game
                frames += exc.frames
                exited = True
                break
            if contract is not None and "slice" not in contract:
                contract["slice"] = check_slice(rt, step, t0, STEP_S)
            frames += step
        screen = rt.screen_size
    if contract is not None:
        left = processes_left(before)
        require(not left, f"processes left running after close: {sorted(left)}")
        contract["stop"] = "nothing left running"
    return {"frames": frames, "launch_s": launch_s, "screen": screen, "exited": exited}


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
    shared by the runs. Without them the check starts its own under ``workdir/shared`` (with
    the options' sandbox backend) and stops them at the end.
    """
    if resources is None:
        backend = {k: options[k] for k in ("sandbox", "apptainer_image") if k in options}
        with WorkerResources(Path(workdir) / "shared", **backend) as own:
            return validate_launch(game, game_dir, workdir, resources=own, **options)

    def run_options(run_dir: Path) -> RuntimeOptions:
        opts = RuntimeOptions(workdir=run_dir, game_dir=Path(game_dir), **options)
        return resources.options_for(game, opts)

    result: dict[str, Any] = {"game": game.id, "runtime": game.runtime}
    runs = []
    contract: dict[str, str] = {}
    for name, with_input in (("idle", False), ("input", True)):
        run_dir = Path(workdir) / name
        run_dir.mkdir(parents=True, exist_ok=True)
        opts = run_options(run_dir)
        try:
            runs.append(_play(game, opts, with_input, None if with_input else contract))
        except GameFailure as exc:
            result.update(ok=False, status=str(exc.status), error=str(exc), failed_run=name)
            return result
        except ContractError as exc:
            result.update(
                ok=False,
                status=str(RunStatus.OK),
                error=f"{CONTRACT_ERROR}{exc}",
                failed_run=name,
                contract=contract,
            )
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
        again = _play(game, repeat_opts, False, None)
        deterministic = all(
            np.array_equal(a, b) for a, b in zip(idle["frames"], again["frames"], strict=False)
        )
    except GameFailure:
        deterministic = False
    result.update(
        ok=non_blank > 0 and (differing > 0 or played["exited"]),
        status=str(RunStatus.OK),
        screen=list(played["screen"]),
        launch_s=round(idle["launch_s"], 3),
        frames=len(played["frames"]),
        non_blank_frames=non_blank,
        frames_changed_by_input=differing,
        deterministic=deterministic,
        quit_on_input=played["exited"],
        contract=contract,
    )
    if not result["ok"]:
        result["error"] = "blank frames only" if non_blank == 0 else "no reaction to input"
    return result
