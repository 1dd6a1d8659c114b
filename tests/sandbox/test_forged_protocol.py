"""A game that forges the pygame host's messages is refused, cheaply, and its episode says so.

The protocol pipe lives in the game's own process (tests/fixtures/forging_game finds it through
/proc/self/fd), so the harness cannot keep game code from writing to it: it must refuse any
message that does not fit what it asked for, before reading a byte of a forged payload.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from playsuite.actions import Wait
from playsuite.agents.baselines import make_baseline
from playsuite.config import Condition
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, run_episode
from playsuite.registry import load_registry
from playsuite.runtimes.base import GameFailure, RunStatus, RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.pygame_host import PROTOCOL_FD_FLOOR
from tests.runtimes.conftest import fixture_game

#: The forged frame is 300 MB; reading it once costs at least that much memory.
MEMORY_BOUND_MB = 64


def _vm_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def _reset_peak_rss() -> None:
    """Make VmHWM (the peak resident size) start again from the current size."""
    Path("/proc/self/clear_refs").write_text("5")


def _forging_game(kind: str):
    # Ready at the first non-blank frame (no settling): the game forges on its second flip,
    # which must then fall inside the first slice.
    return fixture_game("forging_game", args=("--forge", kind), options={"ready_settle_s": 0})


def test_a_forged_oversized_frame_is_refused_before_it_is_read(acquired, run_options) -> None:
    game = _forging_game("frame")
    rt = make_runtime(game, run_options(acquired(game)))
    _reset_peak_rss()
    before = _vm_kb("VmRSS")
    try:
        with pytest.raises(GameFailure) as info:
            rt.start()
        grown_mb = (_vm_kb("VmHWM") - before) / 1024
    finally:
        rt.close()
    assert info.value.status == RunStatus.SANDBOX_VIOLATION
    assert "10000" in str(info.value)
    assert grown_mb < MEMORY_BOUND_MB, f"the harness grew by {grown_mb:.0f} MB"
    assert rt.screen_size == (0, 0)  # nothing of the forged header was recorded
    assert rt.leftovers == []


@pytest.mark.parametrize("kind", ["screen", "header"])
def test_a_forged_message_mid_game_ends_the_game(acquired, run_options, kind: str) -> None:
    game = _forging_game(kind)
    rt = make_runtime(game, run_options(acquired(game), slice_timeout_s=20.0))
    try:
        first = rt.start()
        size = rt.screen_size
        started = time.monotonic()
        with pytest.raises(GameFailure) as info:
            rt.act([Wait()], 0.5)
        waited = time.monotonic() - started
    finally:
        rt.close()
    assert size == (200, 150) and first.frame.shape == (150, 200, 3)
    assert info.value.status == RunStatus.SANDBOX_VIOLATION
    assert waited < 10  # refused at once, not left to run into the slice's wall-clock limit
    assert rt.screen_size == size  # the forged 10000x10000 screen was not recorded
    assert rt.leftovers == []
    # The game found the stream (it shares the host's process), but high up and close-on-exec:
    # the programs it starts do not get it.
    found = json.loads((rt.options.workdir / "sandbox" / "home" / "forging.json").read_text())
    assert found == {"protocol_fd": found["protocol_fd"], "child_sees_it": False}
    assert found["protocol_fd"] >= PROTOCOL_FD_FLOOR


def test_the_episode_records_the_violation(acquired, tmp_path: Path) -> None:
    game = _forging_game("screen")
    files = acquired(game).files
    (tmp_path / "work").mkdir()
    spec = EpisodeSpec(
        corpus="test",
        game=game,
        preset=load_registry().preset("random"),
        condition=Condition.parse("k1-hz1-base"),
        out_dir=tmp_path / "episode",
        runtime_options=RuntimeOptions(workdir=tmp_path / "work", game_dir=files),
        limits=EpisodeLimits(max_steps=3, wall_timeout_s=120),
    )
    meta = run_episode(spec, make_baseline("random", seed=spec.seed), make_runtime)
    assert meta["status"] == "sandbox_violation", meta
    assert "protocol" in meta["error"]
    assert meta["screen"] == [200, 150]
    recorded = json.loads((tmp_path / "episode" / "meta.json").read_text())
    assert recorded["status"] == "sandbox_violation"
