"""The pygame runtime on a fixture game: clock, pausing, input, failures, the Gym Env."""

from __future__ import annotations

import time

import numpy as np
import pytest

from playsuite.actions import Click, Hold, Key, Move, Wait
from playsuite.runtimes.base import GameExited, GameFailure, RunStatus
from playsuite.runtimes.env import GameEnv
from playsuite.runtimes.factory import make_runtime, runtime_class
from playsuite.runtimes.pygame_runtime import PygameRuntime
from tests.runtimes.conftest import fixture_game

PROBES = {
    "score": "main['score']",
    "x": "main['x']",
    "marks": "len(main['marks'])",
    "ticks": "pygame.time.get_ticks()",
}


def probe_game(*args: str):
    return fixture_game("probe_game", args=args, probes=PROBES)


def test_clock_pause_and_input(acquired, run_options) -> None:
    game = probe_game()
    with make_runtime(game, run_options(acquired(game))) as rt:
        assert isinstance(rt, PygameRuntime)
        first = rt.start()
        # fullscreen was removed and the game's own size is the screen
        assert rt.screen_size == (320, 240) and first.frame.shape == (240, 320, 3)
        assert first.frame.dtype == np.uint8
        # paused: a wall-clock wait moves nothing
        time.sleep(0.3)
        again = rt.observe()
        assert again.t_game == first.t_game and np.array_equal(again.frame, first.frame)
        assert again.probes["ticks"] == first.probes["ticks"]
        # the slice advances exactly its game time and yields round(seconds * fps) frames
        frames = rt.act([Wait()], 0.5)
        assert len(frames) == 15
        after = rt.observe()
        assert after.t_game == pytest.approx(first.t_game + 0.5)
        assert abs(after.probes["ticks"] - first.probes["ticks"] - 500) <= 34
        assert not np.array_equal(frames[0], frames[-1])  # background follows game time
        # input: a tap is seen once, a hold for its duration, a click where it landed
        rt.act([Key(("space",))], 0.5)
        assert rt.probes()["score"] == 1
        x0 = rt.probes()["x"]
        rt.act([Hold(("right",), 0.5)], 1.0)
        assert rt.probes()["x"] - x0 == 4 * 15  # 15 frames at 30 fps, 4 px each
        frames = rt.act([Move(x=300, y=10), Click(50, 60)], 0.5)
        assert rt.probes()["marks"] == 1
        assert tuple(frames[-1][60, 50]) == (255, 0, 0)
        assert len(rt.act([Wait()], 1 / 30)) == 1


def test_a_key_kept_down_over_slices_is_pressed_once(acquired, run_options) -> None:
    """A person holding Space over three live slices: holds that keep it down give the game one
    KEYDOWN (the probe game scores one point per KEYDOWN); holds that release it at each slice's
    end, as every key was released before, press it once per slice."""
    game = probe_game()
    with make_runtime(game, run_options(acquired(game))) as rt:
        rt.start()
        for _ in range(3):
            rt.act([Hold(("space",), 0.1, release=False)], 0.1)
        assert rt.probes()["score"] == 1
        x0 = rt.probes()["x"]
        for _ in range(2):  # Space is let go; Right stays down, read by key.get_pressed
            rt.act([Hold(("right",), 0.1, release=False)], 0.1)
        rt.act([Wait()], 0.1)  # nothing keeps Right: released at the slice's start
        x1 = rt.probes()["x"]
        assert x1 - x0 >= 4 * 5  # down for both slices (6 frames), not one frame per slice
        rt.act([Wait()], 0.2)
        assert rt.probes()["x"] == x1 and rt.probes()["score"] == 1
        for _ in range(3):
            rt.act([Hold(("space",), 0.1)], 0.1)
        assert rt.probes()["score"] == 4


def test_seeded_runs_are_identical(acquired, run_options) -> None:
    game = probe_game()
    outs = []
    for _ in range(2):
        with make_runtime(game, run_options(acquired(game), seed=7)) as rt:
            rt.start()
            frames = rt.act([Hold(("down",), 0.3), Key(("space",))], 1.0)
            outs.append(frames[-1])
            home = rt.options.workdir / "sandbox" / "home" / "probe_game.txt"
            outs.append(home.read_text())
    assert np.array_equal(outs[0], outs[2]) and outs[1] == outs[3]


def test_never_waiting_game_gets_frame_time(acquired, run_options) -> None:
    game = probe_game("--fps", "0")
    with make_runtime(game, run_options(acquired(game))) as rt:
        start = rt.start()
        assert len(rt.act([Wait()], 1.0)) == 30
        assert abs(rt.probes()["ticks"] - start.probes["ticks"] - 1000) <= 34  # 1/30 s per flip


@pytest.mark.parametrize(
    ("args", "status", "during"),
    [
        (("--never-render",), RunStatus.LAUNCH_FAILED, "start"),
        # 30 frames: after the first frame has settled (0.5 s), early in the 2 s slice
        (("--crash-after", "30"), RunStatus.CRASHED, "act"),
        (("--hang-after", "30"), RunStatus.TIMEOUT, "act"),
        (("--exit-after", "30"), RunStatus.OK, "act"),
    ],
)
def test_failures_become_statuses(acquired, run_options, args, status, during) -> None:
    game = probe_game(*args)
    opts = run_options(acquired(game), slice_timeout_s=3.0)
    game_opts = {"blank_limit_s": 2.0}
    game = fixture_game("probe_game", args=args, probes=PROBES, options=game_opts)
    rt = make_runtime(game, opts)
    try:
        if during == "start":
            with pytest.raises(GameFailure) as info:
                rt.start()
        else:
            rt.start()
            with pytest.raises(GameFailure) as info:
                rt.act([Wait()], 2.0)
    finally:
        rt.close()
    assert info.value.status == status
    if status == RunStatus.OK:
        assert isinstance(info.value, GameExited)
    if status == RunStatus.CRASHED:
        assert "crashed on purpose" in str(info.value)
    assert rt.leftovers == []


@pytest.mark.slow
def test_a_hung_slice_hands_over_the_frames_it_made(acquired, run_options) -> None:
    """About a second into a 2 s slice the game spins forever: the host's stall watchdog sends
    the frames shown before the hang (for the video) ahead of the harness's own limit."""
    game = probe_game("--hang-after", "45")  # the first frame settles at frame 15
    rt = make_runtime(game, run_options(acquired(game), slice_timeout_s=4.0))
    try:
        start = rt.start()
        started = time.monotonic()
        with pytest.raises(GameFailure) as info:
            rt.act([Wait()], 2.0)
        waited = time.monotonic() - started
    finally:
        rt.close()
    assert info.value.status == RunStatus.TIMEOUT
    frames = info.value.frames
    assert 0 < len(frames) < 60, len(frames)
    assert all(f.shape == start.frame.shape and f.dtype == np.uint8 for f in frames)
    assert waited < 4.0
    assert rt.leftovers == []


def test_missing_entry_is_a_launch_failure(acquired, run_options) -> None:
    game = fixture_game("probe_game", entry="nope.py")
    with pytest.raises(GameFailure) as info, make_runtime(game, run_options(acquired(game))) as rt:
        rt.start()
    assert info.value.status == RunStatus.LAUNCH_FAILED
    assert "nope.py" in str(info.value)


def test_factory_rejects_unknown_runtime() -> None:
    with pytest.raises(ValueError, match="no runtime"):
        runtime_class("flash")


def test_gym_env(acquired, tmp_path) -> None:
    game = probe_game()
    env = GameEnv(game, acquired(game).files, step_seconds=0.5, workdir=tmp_path / "env")
    try:
        obs, info = env.reset(seed=1)
        assert obs.shape == env.observation_space.shape
        assert info["probes"]["score"] == 0
        obs, reward, terminated, truncated, info = env.step([{"kind": "key", "keys": ["space"]}])
        assert info["probes"]["score"] == 1 and len(info["frames"]) == 15
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert env.action_space.contains([{"kind": "wait"}])
        assert not env.action_space.contains([{"kind": "fly"}])
    finally:
        env.close()


def test_a_game_that_sets_its_own_mouse_cursor_plays(acquired, run_options) -> None:
    """The class of pysiogame: pygame's offscreen driver has no cursors and set_cursor raises;
    the host keeps the game's cursor choice and lets it play (the pointer is not in the frames
    of any driver)."""
    game = fixture_game("cursor_game")
    with make_runtime(game, run_options(acquired(game))) as rt:
        rt.start()
        before = rt.observe().frame
        frames = rt.act([Hold(("right",), 0.5)], 0.5)
    assert len(frames) == 15 and not np.array_equal(frames[-1], before)
