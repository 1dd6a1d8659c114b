"""Every pygame game of the local corpus, acquired from its registry and played sandboxed."""

from __future__ import annotations

import time

import numpy as np
import pytest

from playsuite.actions import Hold, Key, Wait
from playsuite.corpus import GameEntry, load_corpus
from playsuite.runtimes.factory import make_runtime
from tests.runtimes.conftest import LOCAL_CORPUS

PYGAME_GAMES = [g for g in load_corpus(LOCAL_CORPUS) if g.runtime == "pygame"]
SCRIPT = [[Key(("enter",))], [Key(("space",))], [Hold(("right",), 0.5), Key(("up",))]]


def _play(game, options, with_input: bool) -> list[np.ndarray]:
    frames = []
    with make_runtime(game, options) as rt:
        first = rt.start()
        assert first.frame.ndim == 3 and first.frame.shape[2] == 3
        assert rt.screen_size == (first.frame.shape[1], first.frame.shape[0])
        if game.screen_size:
            assert rt.screen_size == game.screen_size  # fullscreen removed, native size kept
        time.sleep(0.2)
        paused = rt.observe()
        assert paused.t_game == first.t_game and np.array_equal(paused.frame, first.frame)
        for actions in SCRIPT:
            before = rt.observe().t_game
            step = rt.act(actions if with_input else [Wait()], 1.0)
            assert len(step) == 30
            assert rt.observe().t_game == pytest.approx(before + 1.0)
            frames += step
    assert rt.leftovers == []
    return frames


@pytest.mark.games
@pytest.mark.slow
@pytest.mark.parametrize("game", PYGAME_GAMES, ids=[g.id for g in PYGAME_GAMES])
def test_plays_and_reacts(game, acquired, run_options) -> None:
    files = acquired(game)
    idle = _play(game, run_options(files), with_input=False)
    played = _play(game, run_options(files), with_input=True)
    assert any(f.std() > 1 for f in played)  # non-blank
    # Same seed, same virtual clock: any difference between the runs is the input's doing.
    changed = sum(not np.array_equal(a, b) for a, b in zip(idle, played, strict=True))
    assert changed > 0


@pytest.mark.games
def test_a_debian_game_plays_through_its_own_launcher(acquired, run_options) -> None:
    """funnyboat's row names its script; its package's launcher (/usr/games/funnyboat, a shell
    script that cds to the data folder) must start the same game: same seed, same frames."""
    game = next(g for g in PYGAME_GAMES if g.id == "funnyboat")
    launcher = GameEntry.from_dict({**game.to_dict(), "entry": "usr/games/funnyboat"})
    files = acquired(game)
    runs = [_play(row, run_options(files), with_input=True) for row in (game, launcher)]
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))
