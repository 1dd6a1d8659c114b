"""The runtime contract, checked the same way on every runtime (pygame, browser, native).

Each runtime plays the smallest test game it has (the pygame probe game, the browser test page,
the native X11 clock window), set up the way a harness worker sets it up
(:class:`~playsuite.runtimes.resources.WorkerResources`). One started game per runtime serves
every check that leaves it running; the failure check starts its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from playsuite.actions import Action
from playsuite.actions.canonical import Key, Wait
from playsuite.corpus import GameEntry
from playsuite.runtimes.base import (
    GameFailure,
    Observation,
    RunStatus,
    Runtime,
    RuntimeOptions,
    frames_per_slice,
)
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.resources import WorkerResources

from .conftest import fixture_game
from .test_native import program

DATA = Path(__file__).parent / "data"
SLICE_S = 0.5


@dataclass(frozen=True)
class Case:
    """One runtime's test game and how to make it fail in a slice."""

    game: GameEntry
    local_files: Path | None  # None: acquire the fixture game
    fps: float
    failing: GameEntry  # the same game, set to fail when ``failure_actions`` are played
    failure_actions: tuple[Action, ...]
    failure_status: RunStatus


def _page(**fields: object) -> GameEntry:
    row = {
        "id": "browser-test-page",
        "title": "Browser test page",
        "source": "local",
        "package": "tests/runtimes/data/browser",
        "runtime": "browser",
        "entry": "index.html",
        "screen": "320x320",
        "probes": {"x": "state.x"},
        **fields,
    }
    return GameEntry.from_dict(row)


PROBES = {"marks": "len(main['marks'])"}
CASES = {
    "pygame": Case(
        game=fixture_game("probe_game", probes=PROBES),
        local_files=None,
        fps=30.0,
        # frame 20: after the first frame settled (0.5 s, frame 16), inside the 1 s slice
        failing=fixture_game("probe_game", args=("--crash-after", "20"), probes=PROBES),
        failure_actions=(Wait(),),
        failure_status=RunStatus.CRASHED,
    ),
    "browser": Case(
        game=_page(),
        local_files=DATA / "browser",
        fps=10.0,
        failing=_page(),
        failure_actions=(Key(keys=("h",)),),  # the page loops forever on "h"
        failure_status=RunStatus.TIMEOUT,
    ),
    "native": Case(
        game=program(),
        local_files=DATA / "native",
        fps=10.0,
        failing=program(),
        failure_actions=(Key(keys=("k",)),),  # the program exits with code 3 on "k"
        failure_status=RunStatus.CRASHED,
    ),
}
RUNTIMES = [
    pytest.param("pygame", id="pygame"),
    pytest.param("browser", id="browser", marks=pytest.mark.browser),
    pytest.param("native", id="native"),
]


@dataclass
class Started:
    case: Case
    runtime: Runtime
    first: Observation
    new_options: Callable[[], RuntimeOptions]


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerResources]:
    """The shared browser and display of one 'worker' for the whole module."""
    with WorkerResources(tmp_path_factory.mktemp("worker")) as resources:
        yield resources


@pytest.fixture(scope="module", params=RUNTIMES)
def started(request, worker, acquired, tmp_path_factory) -> Iterator[Started]:
    """One game per runtime, started once; closed (twice) when the module is done with it."""
    case = CASES[request.param]
    files = case.local_files or acquired(case.game).files
    runs = tmp_path_factory.mktemp(f"runs-{request.param}")
    counter = iter(range(100))

    def new_options() -> RuntimeOptions:
        workdir = runs / f"run{next(counter)}"
        workdir.mkdir()
        options = RuntimeOptions(
            workdir=workdir,
            game_dir=files,
            video_fps=case.fps,
            launch_timeout_s=30.0,
            slice_timeout_s=3.0,
        )
        return worker.options_for(case.game, options)

    runtime = make_runtime(case.game, new_options())
    try:
        first = runtime.start()
        yield Started(case, runtime, first, new_options)
    finally:
        runtime.close()
        runtime.close()


def test_start_returns_the_first_frame_at_game_time_zero(started: Started) -> None:
    width, height = started.runtime.screen_size
    frame = started.first.frame
    assert frame.shape == (height, width, 3) and frame.dtype == np.uint8
    assert started.first.t_game == 0.0
    assert isinstance(started.first.probes, dict)


def test_game_time_is_frozen_between_calls(started: Started) -> None:
    before = started.runtime.observe()
    time.sleep(0.3)  # wall time passes; game time and the screen must not
    after = started.runtime.observe()
    assert after.t_game == before.t_game
    assert np.array_equal(before.frame, after.frame)


def test_acting_advances_game_time_by_the_slice(started: Started) -> None:
    rt = started.runtime
    t0 = rt.observe().t_game
    frames = rt.act([], SLICE_S)
    assert len(frames) == frames_per_slice(SLICE_S, started.case.fps)
    width, height = rt.screen_size
    assert all(f.shape == (height, width, 3) and f.dtype == np.uint8 for f in frames)
    after = rt.observe()
    assert after.t_game == pytest.approx(t0 + SLICE_S)
    assert np.array_equal(frames[-1], after.frame)  # the last frame is the paused screen


def test_probes_are_a_dict(started: Started) -> None:
    probes = started.runtime.probes()
    assert isinstance(probes, dict)
    assert set(started.case.game.probes) <= set(probes)


def test_a_failing_game_raises_game_failure_with_its_status(started: Started) -> None:
    case = started.case
    rt = make_runtime(case.failing, started.new_options())
    try:
        rt.start()
        with pytest.raises(GameFailure) as failure:
            rt.act(list(case.failure_actions), 1.0)
        assert failure.value.status == case.failure_status
    finally:
        rt.close()
    rt.close()  # closing again is harmless
