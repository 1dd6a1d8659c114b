"""The contract checks themselves (playsuite.runtimes.contract) catch each kind of breach, shown
on the scripted test double: the real runtimes pass them in test_validate and test_conformance."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from playsuite.corpus import GameEntry
from playsuite.runtimes.base import Observation, RuntimeOptions
from playsuite.runtimes.contract import ContractError, check_frozen, check_launch, check_slice
from playsuite.testing.fakes import FakeRuntime

ROW = GameEntry.from_dict(
    {
        "id": "fake",
        "title": "Fake",
        "source": "local",
        "package": ".",
        "runtime": "pygame",
        "entry": "main.py",
    }
)


class DriftingRuntime(FakeRuntime):
    """Breaks the contract on purpose: game time moves while nobody acts (a clock not frozen)."""

    def observe(self) -> Observation:
        self.t += 0.1
        return super().observe()


def fake(tmp_path: Path, runtime: type[FakeRuntime] = FakeRuntime) -> FakeRuntime:
    return runtime(ROW, RuntimeOptions(workdir=tmp_path, game_dir=tmp_path, video_fps=10.0))


def test_a_conforming_runtime_passes(tmp_path: Path) -> None:
    rt = fake(tmp_path)
    assert check_launch(rt, rt.start()).endswith(f"{rt.screen_size[1]}")
    assert check_frozen(rt, wait_s=0.01).startswith("still")
    frames = rt.act([], 0.5)
    assert check_slice(rt, frames, 0.0, 0.5) == "5 frames, 0.5 s of game time"


def test_each_breach_is_named(tmp_path: Path) -> None:
    rt = fake(tmp_path)
    first = rt.start()
    wrong = Observation(first.frame[:, :-1], 0.0, {})
    with pytest.raises(ContractError, match=r"frame .* for a"):
        check_launch(rt, wrong)
    with pytest.raises(ContractError, match=r"first frame at game time 0\.5"):
        check_launch(rt, Observation(first.frame, 0.5, {}))
    frames = rt.act([], 0.5)
    with pytest.raises(ContractError, match=r"4 frames for a 0\.5 s slice, expected 5"):
        check_slice(rt, frames[:-1], 0.0, 0.5)
    with pytest.raises(ContractError, match="last frame is not the paused screen"):
        check_slice(rt, [*frames[:-1], np.zeros_like(frames[-1]) + 77], 0.0, 0.5)
    drifting = fake(tmp_path, DriftingRuntime)
    drifting.start()
    with pytest.raises(ContractError, match="game time moved"):
        check_frozen(drifting, wait_s=0.01)
