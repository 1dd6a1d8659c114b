"""Readiness: the first observation is the game's picture once it has settled, not a loading
screen (runtimes.screen_settle, used by every runtime; here the pygame host, in game time)."""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.config import game_option_default
from playsuite.corpus import GameEntry
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.screen_settle import Settle, changed_share, is_blank
from tests.runtimes.conftest import fixture_game

DATA = Path(__file__).parent / "data"
FIXTURES = Path(__file__).parents[1] / "fixtures"
PROBES = {"phase": "main['phase']", "ticks": "pygame.time.get_ticks()"}
TITLE = (30, 60, 160)  # the title screen's background; the loading screen's is black


def loading_game(*args: str, **options: object):
    return fixture_game("loading_game", args=args, probes=PROBES, options=options)


def test_first_observation_is_the_title_not_the_loading_screen(acquired, run_options) -> None:
    game = loading_game()
    with make_runtime(game, run_options(acquired(game))) as rt:
        first = rt.start()
        assert first.probes["phase"] == "title"
        assert tuple(first.frame[5, 5]) == TITLE
        # it waited for the picture to hold: the title (from 0.3 s) for the settle time
        settle_s = game_option_default("ready_settle_s")
        assert first.probes["ticks"] == pytest.approx(300 + 1000 * settle_s, abs=40)
        assert first.t_game == 0.0  # game time counts from readiness
        rt.act([], 0.5)
        assert rt.observe().t_game == pytest.approx(0.5)


def test_settle_zero_takes_the_first_non_blank_frame(acquired, run_options) -> None:
    game = loading_game(ready_settle_s=0)
    with make_runtime(game, run_options(acquired(game))) as rt:
        first = rt.start()
        assert first.probes["phase"] == "loading" and tuple(first.frame[5, 5]) == (0, 0, 0)


def test_a_title_that_never_holds_still_is_taken_at_ready_max_s(acquired, run_options) -> None:
    game = loading_game("--animated", ready_max_s=1.0)
    with make_runtime(game, run_options(acquired(game))) as rt:
        first = rt.start()
        assert first.probes["phase"] == "title"
        assert first.probes["ticks"] == pytest.approx(1000, abs=40)  # first frame at 0 + 1.0 s


def frame(colour: tuple[int, int, int], *, w: int = 64, h: int = 48) -> bytearray:
    return bytearray(bytes(colour) * (w * h))


def test_settle_rule() -> None:
    black, grey = frame((0, 0, 0)), frame((90, 90, 90))
    assert is_blank(bytes(black)) and changed_share(bytes(black), bytes(grey)) == 1.0
    near = frame((90, 90, 90))
    near[0:30] = bytes([100]) * 30  # ten pixels moved by 10: under the tolerance
    assert changed_share(bytes(grey), bytes(near)) == 0.0
    menu = frame((90, 90, 90))
    menu[: len(menu) // 3] = bytes([200]) * (len(menu) // 3)  # a third of the screen redrawn
    assert changed_share(bytes(grey), bytes(menu)) == pytest.approx(1 / 3, abs=0.02)

    settle = Settle(0.5, 2.0)
    settle.see(bytes(black), 0.0)
    assert settle.due() is None and not settle.ready(10.0)  # blank: never ready
    grey[:3] = b"\x00\x00\x00"  # not one flat colour
    settle.see(bytes(grey), 0.1)  # the loading screen
    assert settle.due() == pytest.approx(0.6) and not settle.ready(0.5)
    menu[:3] = b"\x00\x00\x00"
    settle.see(bytes(menu), 0.4)  # a new picture: the hold starts again
    assert settle.holds == 2 and settle.due() == pytest.approx(0.9)
    settle.see(bytes(menu), 0.8)
    assert not settle.ready(0.8) and settle.ready(0.9)
    restless = Settle(0.5, 1.0)
    for i in range(30):  # a new picture every tenth of a second
        restless.see(bytes(grey if i % 2 else menu), 0.2 + i / 10)
        if restless.ready(0.2 + i / 10):
            break
    assert i == 10  # taken at first_t + max_s = 1.2 s
    with pytest.raises(ValueError):
        Settle(-1, 1)


@pytest.mark.browser
@pytest.mark.slow  # a cold Chromium
def test_browser_page_is_ready_after_its_loading_screen(tmp_path) -> None:
    """The same rule in page-clock time: a page that shows "loading" for 400 ms."""
    page = GameEntry.from_dict(
        {
            "id": "loading-page",
            "title": "Loading page",
            "source": "local",
            "package": "tests/runtimes/data/browser",
            "runtime": "browser",
            "entry": "loading.html",
            "screen": "320x240",
            "probes": {"phase": "window.phase"},
        }
    )
    options = RuntimeOptions(workdir=tmp_path / "run", game_dir=DATA / "browser")
    with make_runtime(page, options) as rt:
        first = rt.start()
        assert first.probes["phase"] == "title" and tuple(first.frame[5, 5]) == (30, 60, 160)
        assert first.t_game == 0.0


def test_native_window_is_ready_after_its_loading_screen(tmp_path) -> None:
    """The same rule in wall time: the loading game as a native program (pygame on SDL's x11
    driver, on the runtime's own Xvfb), its loading screen 0.3 s of its (faked) clock."""
    program = GameEntry.from_dict(
        {
            "id": "loading-program",
            "title": "Loading program",
            "source": "local",
            "package": "tests/fixtures/loading_game",
            "runtime": "native",
            "entry": "/usr/bin/python3",
            "args": ["/game/main.py"],
        }
    )
    options = RuntimeOptions(workdir=tmp_path / "run", game_dir=FIXTURES / "loading_game")
    options.workdir.mkdir()
    with make_runtime(program, options) as rt:
        first = rt.start()
        assert tuple(first.frame[5, 5]) == TITLE and first.t_game == 0.0
