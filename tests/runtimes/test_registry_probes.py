"""Probes and tasks declared on registry rows (config/corpora/registry.tsv), read from the real
games: two of the annotated rows are acquired from Debian, played through a short key script and
must answer every declared probe with a value (no ``NAME.error``), from which each task's
expression gets a number."""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.actions import Action, Hold, Key, Wait
from playsuite.corpus import find_game, load_corpus
from playsuite.judge.tasks import game_tasks
from playsuite.runtimes.factory import make_runtime

REGISTRY = Path(__file__).resolve().parents[2] / "config" / "corpora" / "registry.tsv"

#: Per game: the inputs that start play and score (each step one game second), and the least
#: score they must have earned (freealchemist gives 10 points per dropped pair).
SCRIPTS: dict[str, tuple[list[list[Action]], int]] = {
    "debian-freealchemist": ([[Key(("return",))], [Key(("space",))], [Wait()]], 10),
    # one is enough starts playing at once; Z provokes the nearby capitalist ball
    "debian-oneisenough": ([[Hold(("z",), 0.9)], [Wait()]], 0),
}


@pytest.mark.games
@pytest.mark.slow
@pytest.mark.parametrize("game_id", sorted(SCRIPTS))
def test_declared_probes_answer_on_the_real_game(game_id, acquired, run_options) -> None:
    game = find_game(load_corpus(REGISTRY), game_id)
    script, least_score = SCRIPTS[game_id]
    assert game.probes and game.tasks
    with make_runtime(game, run_options(acquired(game))) as rt:
        rt.start()
        for actions in script:
            rt.act(actions, 1.0)
        probes = rt.probes()
    assert not [k for k in probes if k.endswith(".error")], probes
    for name in game.probes:
        assert probes.get(name) is not None, (name, probes)
    assert probes["score"] >= least_score and probes["game_over"] is False
    for task in game_tasks(game):
        assert task.value(probes) is not None, task.name
