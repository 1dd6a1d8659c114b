"""No process outlives a browser run: a cold run (the runtime launches its own sandboxed
Chromium) is counted process by process, including after the page hangs and is killed.

Its own module: Playwright's sync API allows one driver per thread, and test_browser.py keeps a
worker browser open for its whole module.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from playsuite.actions.canonical import Key
from playsuite.runtimes import procs
from playsuite.runtimes.base import GameFailure, RunStatus, RuntimeOptions
from playsuite.runtimes.factory import make_runtime

from .test_browser import FPS, PAGES, page_game

pytestmark = pytest.mark.browser


def _live_descendants() -> set[int]:
    return {p for p in procs.descendants(os.getpid()) if procs.alive(p)}


@pytest.mark.slow
def test_no_process_outlives_a_cold_run_even_after_a_crash(tmp_path: Path) -> None:
    before = _live_descendants()
    game = page_game()
    opts = RuntimeOptions(
        workdir=tmp_path / "run", game_dir=PAGES, video_fps=FPS, slice_timeout_s=3.0
    )
    with make_runtime(game, opts) as rt:  # no shared browser: the runtime launches its own
        rt.start()
        assert len(_live_descendants() - before) > 3  # driver, bwrap, Chromium's processes
        with pytest.raises(GameFailure) as failure:
            rt.act([Key(keys=("h",))], 0.5)
        assert failure.value.status == RunStatus.TIMEOUT
    deadline = time.monotonic() + 5
    while _live_descendants() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _live_descendants() - before == set()
