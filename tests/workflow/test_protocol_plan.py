"""The protocol options at plan time: contradictions and a reset-on-fail condition with nothing
to reset fail the plan before any job starts; the run's settings reach `playsuite play-shard`."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from playsuite.config import ConfigError, load_validated
from playsuite.planning.play import protocol_option, run_protocol, shard_units
from playsuite.registry import load_registry

REPO = Path(__file__).resolve().parents[2]
RESET = "k0-hz1-base+play.action_budget=100+play.reset_on_fail=true"


@pytest.fixture(scope="module")
def default() -> dict:
    return load_validated(REPO / "config" / "config.yaml", "config")


@pytest.fixture(scope="module")
def registry():
    return load_registry(REPO / "config" / "models.yaml")


def with_play(config: dict, conditions: list[str] | None = None, **play: object) -> dict:
    out = copy.deepcopy(config)
    out["play"] = {**out.get("play", {}), **play}
    if conditions is not None:
        out["conditions"] = conditions
    return out


def test_the_default_run_plays_the_paused_protocol(default: dict) -> None:
    assert run_protocol(default).paused and protocol_option(default) == ""


def test_run_settings_become_play_shard_options(default: dict) -> None:
    config = with_play(default, action_budget=100, reset_on_fail=True, realtime=True)
    assert protocol_option(config) == " --action-budget 100 --reset-on-fail --realtime"


def test_a_reset_on_fail_condition_plans_on_games_with_a_game_over_probe(
    default: dict, registry
) -> None:
    units = shard_units(with_play(default, [RESET]), registry)
    assert {u.condition for u in units if not u.check} >= {RESET}


def test_reset_on_fail_with_no_game_over_probe_is_refused(
    default: dict, registry, tmp_path: Path
) -> None:
    corpus = yaml.safe_load((REPO / "config/corpora/local.yaml").read_text())
    corpus["games"] = [g for g in corpus["games"] if "game_over" not in g.get("probes", {})]
    table = tmp_path / "plain.yaml"
    table.write_text(yaml.safe_dump(corpus))
    config = with_play(default, [RESET])
    config["corpora"] = {"plain": {"table": str(table)}}
    config["engine"]["checks"] = None
    config["ablations"] = []
    with pytest.raises(ConfigError, match="declares a 'game_over' probe"):
        shard_units(config, registry)
    # the same with reset_on_fail for the whole run
    with pytest.raises(ConfigError, match="nothing would ever be reset"):
        shard_units(with_play(config, ["k0-hz1-base"], reset_on_fail=True), registry)


@pytest.mark.parametrize(
    ("conditions", "play"),
    [
        (["k0-hz1-base+play.action_budget=5+play.steps=3"], {}),
        (["k0-hz1-base"], {"steps": 3, "action_budget": 100}),
    ],
)
def test_steps_and_an_action_budget_together_are_refused(
    default: dict, registry, conditions: list[str], play: dict
) -> None:
    with pytest.raises(ConfigError, match="not both"):
        shard_units(with_play(default, conditions, **play), registry)


def test_the_gameworld_ablation_plans_paused_and_real_time(default: dict, registry) -> None:
    config = copy.deepcopy(default)
    config["analysis"]["ablations"] = ["config/ablations/gameworld.yaml"]
    units = [u for u in shard_units(config, registry) if "+play." in u.condition]
    base = "k0-hz1-base+play.action_budget=100"
    assert {u.condition for u in units} == {
        f"{base}+play.reset_on_fail=true",
        f"{base}+play.realtime=true+play.reset_on_fail=true",
    }
    assert {u.preset for u in units} == set(default["presets"])


def test_a_task_run_plays_only_the_games_with_that_task(default: dict, registry) -> None:
    """task.index=N: a game without an N-th task would be played for no task row."""
    corpus = yaml.safe_load((REPO / "config/corpora/local.yaml").read_text())["games"]
    with_two = {g["id"] for g in corpus if len(g.get("tasks", [])) >= 2}
    assert with_two and with_two != {g["id"] for g in corpus}  # supertux and slayer have none
    conditions = ["k0-hz0.33-base", "k0-hz0.33-base+task.index=1", "k0-hz0.33-base+task.index=2"]
    units = [u for u in shard_units(with_play(default, conditions), registry) if not u.check]
    games = {c: {g for u in units if u.condition == c for g in u.games} for c in conditions}
    assert games[conditions[0]] == {g["id"] for g in corpus}
    assert games[conditions[1]] == with_two
    assert games[conditions[2]] == set()  # no row has a third task: no job at all
