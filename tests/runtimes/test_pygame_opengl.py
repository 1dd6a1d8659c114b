"""An OpenGL pygame game renders on the worker's Xvfb and is captured with glReadPixels."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from playsuite.actions import Hold
from playsuite.corpus import GameEntry
from playsuite.runtimes.acquire import acquire
from playsuite.runtimes.base import GameFailure, RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.xdisplay import VirtualDisplay

REPO = Path(__file__).resolve().parents[2]
GL_GAME = GameEntry.from_dict(
    {
        "id": "gl-game",
        "title": "GL probe",
        "source": "local",
        "package": str(REPO / "tests" / "fixtures" / "gl_game"),
        "runtime": "pygame",
        "entry": "main.py",
        "screen": "320x240",
        "options": {"opengl": True},
    }
)


def square_x(frame: np.ndarray) -> float:
    """Mean column of the yellow square (the game draws it with GL scissor clears)."""
    cols = np.argwhere((frame[:, :, 0] > 200) & (frame[:, :, 2] < 50))[:, 1]
    assert cols.size, "the square is not in the captured frame"
    return float(cols.mean())


def test_opengl_game_is_captured_frozen_and_driven(tmp_path: Path) -> None:
    files = acquire(GL_GAME, tmp_path / "games").files
    with VirtualDisplay() as display:
        options = RuntimeOptions(
            workdir=tmp_path / "run", game_dir=files, video_fps=30, display=display.name
        )
        options.workdir.mkdir()
        with make_runtime(GL_GAME, options) as rt:
            start = rt.start()
            assert start.frame.shape == (240, 320, 3)
            assert start.frame.mean() > 20  # a GL-only window would read black without glReadPixels
            time.sleep(0.3)
            assert np.array_equal(rt.observe().frame, start.frame)  # frozen while paused
            frames = rt.act([Hold(keys=("right",), seconds=1.0)], 1.0)
            assert len(frames) == 30 and rt.observe().t_game == pytest.approx(1.0)
            assert square_x(frames[-1]) - square_x(start.frame) > 80  # ~4 px per held frame


def test_opengl_game_without_a_display_is_a_launch_failure(tmp_path: Path) -> None:
    files = acquire(GL_GAME, tmp_path / "games").files
    options = RuntimeOptions(workdir=tmp_path / "run", game_dir=files, video_fps=30)
    options.workdir.mkdir()
    with make_runtime(GL_GAME, options) as rt, pytest.raises(GameFailure, match="X display"):
        rt.start()
