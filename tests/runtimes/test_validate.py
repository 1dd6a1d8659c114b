"""The launch check (runtimes.validate): what it gives a game and which inputs it tries."""

from __future__ import annotations

import os
from pathlib import Path

from playsuite.runtimes.validate import validate_launch
from tests.runtimes.conftest import fixture_game

GL_GAME = fixture_game("gl_game", screen="320x240", options={"opengl": True})


def test_opengl_pygame_game_gets_a_display_and_passes(acquired, tmp_path: Path) -> None:
    """As the rule validate_launch calls it (no worker resources): the check starts the X
    display an OpenGL game is played on, and stops it afterwards."""
    result = validate_launch(GL_GAME, acquired(GL_GAME).files, tmp_path, video_fps=10)
    assert result["ok"] is True, result
    assert result["status"] == "ok" and result["screen"] == [320, 240]
    assert result["frames_changed_by_input"] > 0 and result["quit_on_input"] is False
    assert our_xvfbs() == []  # the display it started is stopped


def our_xvfbs() -> list[int]:
    """Xvfb processes that are children of this test process."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        comm, rest = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :]
        if comm == "Xvfb" and int(rest.split()[1]) == os.getpid():
            found.append(int(stat.parent.name))
    return found


def test_mouse_only_menu_reacts_to_the_default_clicks(acquired, tmp_path: Path) -> None:
    game = fixture_game("mouse_menu_game")
    result = validate_launch(game, acquired(game).files, tmp_path, video_fps=10)
    assert result["ok"] is True, result
    assert result["non_blank_frames"] == result["frames"]
    assert result["frames_changed_by_input"] > 0 and result["deterministic"] is True


def test_a_game_that_never_reacts_still_fails(acquired, tmp_path: Path) -> None:
    game = fixture_game("mouse_menu_game", args=("--deaf",))
    result = validate_launch(game, acquired(game).files, tmp_path, video_fps=10)
    assert result["ok"] is False and result["status"] == "ok"
    assert result["error"] == "no reaction to input"
    assert result["frames_changed_by_input"] == 0


def test_a_click_that_quits_the_game_is_a_reaction(acquired, tmp_path: Path) -> None:
    """The click grid can hit a menu's Quit entry: the input run ends there, and the game has
    shown that it answers input (its idle runs keep going)."""
    game = fixture_game("mouse_menu_game", args=("--quit",))
    result = validate_launch(game, acquired(game).files, tmp_path, video_fps=10)
    assert result["ok"] is True and result["quit_on_input"] is True, result
    assert result["frames_changed_by_input"] == 0 and result["deterministic"] is True
