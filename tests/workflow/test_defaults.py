"""Defaults of the play, judge and engine settings live only in the schema: the package's
readers of a config that skipped Snakemake's validate fill in exactly what validate does."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate as snakemake_validate

from playsuite.config import ConfigError, with_defaults
from playsuite.judge.run import workflow_settings
from playsuite.planning.play import engine_vllm, play_settings

REPO = Path(__file__).resolve().parents[2]
SCHEMA = str(REPO / "config" / "schemas" / "config.schema.json")


def test_the_schema_holds_the_paper_defaults() -> None:
    play = play_settings({})
    assert (play["shard_size"], play["workers"], play["steps"]) == (64, 8, None)
    assert (play["wall_timeout_s"], play["sandbox"], play["apptainer_image"]) == (
        3600,
        "bwrap",
        None,
    )
    assert play["server_argv"] is None and play["lock_wait_s"] == 0
    judge = workflow_settings({})
    assert (judge["shard_size"], judge["attempts"], judge["state_where_probes"]) == (50, 3, True)
    assert judge["ready_timeout_s"] == 1800 and judge["extra_body"] == {}
    assert judge["server_argv"] is None and judge["prefetch"] is None
    assert engine_vllm({}) == ".venv-engine/bin/vllm"


def test_a_set_value_wins_and_the_input_is_not_changed() -> None:
    config = {"play": {"workers": 2}, "judge": {"shard_size": 5}}
    before = copy.deepcopy(config)
    assert play_settings(config)["workers"] == 2 and play_settings(config)["shard_size"] == 64
    assert workflow_settings(config)["shard_size"] == 5
    assert config == before
    with pytest.raises(ConfigError, match="play/workers"):
        play_settings({"play": {"workers": 0}})


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml"])
def test_same_defaults_as_snakemake_validate(name: str) -> None:
    config = yaml.safe_load((REPO / "config" / name).read_text())
    filled = copy.deepcopy(config)
    snakemake_validate(filled, SCHEMA)
    assert with_defaults(config, "config") == filled
    for section in ("play", "judge", "engine", "analysis"):
        assert with_defaults(config.get(section), "config", section) == filled[section]
