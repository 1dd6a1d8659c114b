"""config/paper.yaml, the paper-scale shard plan, and the Slurm profile's settings."""

from __future__ import annotations

import builtins
import json
import shlex
import sys
from pathlib import Path

import pytest
import yaml

from playsuite.analysis.ablations import load_ablation
from playsuite.config import load_validated
from playsuite.planning.play import (
    block_index,
    blocks_of,
    game_blocks,
    run_games,
    server_argv_option,
    shard_units,
)
from playsuite.registry import load_registry

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from paper_catalog import PAPER_COUNTS, write_paper_catalog  # noqa: E402


@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """config/paper.yaml over a synthetic catalog of the paper's size."""
    tables = write_paper_catalog(tmp_path_factory.mktemp("catalog"))
    config = load_validated(REPO / "config" / "paper.yaml", "config")
    config["corpora"] = {c: {"table": str(p)} for c, p in tables.items()}
    return config


def test_paper_config_names_the_papers_runs() -> None:
    config = load_validated(REPO / "config" / "paper.yaml", "config")
    registry = load_registry(REPO / config["models"])
    served = sorted(n for n, p in registry.presets.items() if p.kind == "vllm" and not p.extra)
    assert sorted(config["presets"]) == served and len(served) == 14
    assert config["judges"] == ["qwen3.5-9b"] and registry.judge("qwen3.5-9b").gpus == 1
    assert config["play"]["steps"] is None and config["play"]["workers"] == 8
    assert set(config["corpora"]) == {"itch", "pyweek"}
    assert {load_ablation(REPO / p).name for p in config["analysis"]["ablations"]} == {
        "history",
        "rate",
        "prompting",
    }


@pytest.mark.slow
def test_paper_plan_covers_every_episode_in_few_shards(paper: dict) -> None:
    registry = load_registry(REPO / paper["models"])
    units = shard_units(paper, registry)
    runs = run_games(paper, registry)
    assert sum(len(u.games) for u in units) == sum(len(g) for g in runs.values())
    games = sum(PAPER_COUNTS.values())
    main = games * 14 * 2
    history = (200 + 104) * 14 * 2  # k5 and k10 on the itch subset and every PyWeek game
    rate = 104 * 14 * 2  # k0/k3 at 3 Hz on PyWeek
    prompting = (200 + 104) * 8 * 2  # strategy and few-shot for the 8 standard-template VLMs
    assert sum(len(g) for g in runs.values()) == main + history + rate + prompting
    assert len(units) < 3000  # one job per 64 games: the DAG stays plannable
    assert max(len(u.games) for u in units) == paper["play"]["shard_size"]


def test_main_run_shards_depend_on_one_acquisition_block(paper: dict) -> None:
    registry = load_registry(REPO / paper["models"])
    blocks = game_blocks(paper)
    index = block_index(blocks)
    assert {c: sum(len(ids) for ids in b.values()) for c, b in blocks.items()} == PAPER_COUNTS
    edges = 0
    for unit in shard_units(paper, registry):
        needed = blocks_of(unit, index)
        covered = {g for b in needed for g in blocks[unit.corpus][b]}
        assert set(unit.games) <= covered
        if unit.condition in paper["conditions"]:
            assert needed == [unit.shard] and blocks[unit.corpus][unit.shard] == unit.games
        edges += len(needed)
    assert edges < 15_000  # instead of one edge per game per shard (~190K)


def test_server_argv_option_fills_the_preset_and_quotes_for_the_shell() -> None:
    argv = ["python", "-m", "x", "--model", "{preset}", "--uds", "{uds}"]
    config = {"play": {"server_argv": argv}}
    option = server_argv_option(config, "qwen3-vl-8b")
    flag, value = shlex.split(option)
    assert flag == "--server-argv"
    assert json.loads(value) == ["python", "-m", "x", "--model", "qwen3-vl-8b", "--uds", "{uds}"]
    assert server_argv_option({"play": {}}, "qwen3-vl-8b") == ""


def evaluate(expression: str) -> object:
    """A profile resource value, evaluated as Snakemake does (builtins only in scope)."""
    return eval(expression, {"__builtins__": builtins})


def test_slurm_profile_reads_site_settings_from_the_environment(monkeypatch) -> None:
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    assert profile["executor"] == "slurm" and profile["slurm-requeue"] is True
    assert profile["slurm-logdir"].startswith("results/logs")
    assert profile["replace-workflow-config"] is True and profile["retries"] >= 1
    defaults = profile["default-resources"]
    gpu_partition = profile["set-resources"]["play_shard"]["slurm_partition"]
    assert profile["set-resources"]["judge_shard"]["slurm_partition"] == gpu_partition
    for name in ("PLAYSUITE_SLURM_PARTITION", "PLAYSUITE_SLURM_GPU_PARTITION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("PLAYSUITE_SLURM_ACCOUNT", raising=False)
    assert evaluate(defaults["slurm_partition"]) == "" and evaluate(gpu_partition) == ""
    assert evaluate(defaults["slurm_account"]) == ""
    monkeypatch.setenv("PLAYSUITE_SLURM_PARTITION", "cpu")
    monkeypatch.setenv("PLAYSUITE_SLURM_ACCOUNT", "proj")
    monkeypatch.setenv("PLAYSUITE_SLURM_EXTRA", "--qos=high")
    assert evaluate(defaults["slurm_partition"]) == "cpu" and evaluate(gpu_partition) == "cpu"
    assert evaluate(defaults["slurm_account"]) == "proj"
    assert evaluate(defaults["slurm_extra"]) == "--qos=high"
    monkeypatch.setenv("PLAYSUITE_SLURM_GPU_PARTITION", "gpu")
    assert evaluate(gpu_partition) == "gpu" and evaluate(defaults["slurm_partition"]) == "cpu"
