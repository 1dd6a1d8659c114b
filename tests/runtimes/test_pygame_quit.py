"""A pygame game that quits through its own menu ends cleanly (issue #16, defect 4).

The fixture closes pygame first and then keeps running briefly, as real games do; input the
host still had scheduled (the release of the key that chose Quit) must not make it crash.
"""

from __future__ import annotations

import pytest

from playsuite.actions import Key
from playsuite.runtimes.base import GameExited, RunStatus
from playsuite.runtimes.factory import make_runtime
from tests.runtimes.conftest import fixture_game


@pytest.mark.parametrize("how", ["display", "quit", "exit", "linger"])
def test_quitting_from_the_menu_is_a_clean_end(acquired, run_options, how: str) -> None:
    game = fixture_game("quit_game", args=("--how", how))
    rt = make_runtime(game, run_options(acquired(game), slice_timeout_s=10.0))
    try:
        rt.start()
        rt.act([Key(("down",))], 0.5)  # highlight Quit
        with pytest.raises(GameExited) as info:
            rt.act([Key(("enter",))], 1.0)  # choose it; "linger" outlasts the slice
    finally:
        rt.close()
    assert info.value.status == RunStatus.OK, info.value
    if how == "linger":  # still running at the slice's end: the whole slice, last frame held
        assert len(info.value.frames) == 30
    assert rt.leftovers == []
