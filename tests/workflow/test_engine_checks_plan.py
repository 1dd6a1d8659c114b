"""Engine checks in the plan: tiny random-weight presets on one corpus under the main
with-history condition, only when `engine.checks` is configured, never among the paper's runs."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from playsuite.config import ConfigError, load_validated, validate
from playsuite.planning.play import check_runs, engine_checks, run_games, shard_units, tiny_model
from playsuite.registry import load_registry

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
CHECK_RUN = ("local", "tiny-qwen2.5-vl", "k3-hz0.33-base")


@pytest.fixture(scope="module")
def default() -> dict:
    return load_validated(REPO / "config" / "config.yaml", "config")


@pytest.fixture(scope="module")
def registry():
    return load_registry(REPO / "config" / "models.yaml")


def local_games() -> list[str]:
    corpus = yaml.safe_load((REPO / "config" / "corpora" / "local.yaml").read_text())
    return sorted(g["id"] for g in corpus["games"])


def without_checks(config: dict) -> dict:
    out = copy.deepcopy(config)
    out["engine"].pop("checks")
    return out


def test_embedded_default_configures_one_check_run(default: dict, registry) -> None:
    checks = engine_checks(default, registry)
    assert checks.corpus == "local" and checks.presets == ("tiny-qwen2.5-vl",)
    assert checks.judge == "tiny-judge"
    assert checks.condition == default["analysis"]["main"]["with_history"] == "k3-hz0.33-base"
    assert check_runs(default, registry) == {CHECK_RUN: local_games()}


def test_check_shards_are_marked_and_apart_from_the_papers_runs(default: dict, registry) -> None:
    units = shard_units(default, registry)
    checks = [u for u in units if u.check]
    assert {(u.corpus, u.preset, u.condition) for u in checks} == {CHECK_RUN}
    assert sorted(g for u in checks for g in u.games) == local_games()
    assert all(not u.check for u in units if u.preset in default["presets"])
    # The paper's runs (main and ablations) are exactly those of the config without checks.
    plain = shard_units(without_checks(default), registry)
    assert [u for u in units if not u.check] == plain
    assert not any(u.check or u.preset.startswith("tiny") for u in plain)
    assert CHECK_RUN not in run_games(default, registry)


def test_configs_without_checks_plan_none(default: dict, registry) -> None:
    paper = load_validated(REPO / "config" / "paper.yaml", "config")
    assert not engine_checks(paper, registry)
    assert check_runs(paper, registry) == {}
    plain = without_checks(default)
    assert not engine_checks(plain, registry) and check_runs(plain, registry) == {}
    nulled = copy.deepcopy(default)
    nulled["engine"]["checks"] = None
    validate(nulled, "config")
    assert not engine_checks(nulled, registry)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"presets": ["qwen3-vl-8b"]}, "not a tiny random-weight preset"),
        ({"judge": "qwen3.5-9b"}, "not a tiny random-weight judge"),
        ({"corpus": "itch"}, "not one of the configured corpora"),
        ({"presets": ["no-such-preset"]}, "unknown preset"),
    ],
)
def test_bad_checks_are_refused(default: dict, registry, change: dict, message: str) -> None:
    config = copy.deepcopy(default)
    config["engine"]["checks"].update(change)
    with pytest.raises(ConfigError, match=message):
        engine_checks(config, registry)


def test_a_check_preset_cannot_also_be_a_paper_preset(default: dict, registry) -> None:
    config = copy.deepcopy(default)
    config["presets"] = [*config["presets"], "tiny-qwen2.5-vl"]
    with pytest.raises(ConfigError, match="both an engine check and one of `presets`"):
        shard_units(config, registry)


def test_schema_requires_every_check_key(default: dict) -> None:
    config = copy.deepcopy(default)
    del config["engine"]["checks"]["judge"]
    with pytest.raises(ConfigError, match="judge"):
        validate(config, "config")
    config["engine"]["checks"].update(judge="tiny-judge", presets=[])
    with pytest.raises(ConfigError, match="presets"):
        validate(config, "config")


def test_tiny_models_are_built_for_tiny_presets_and_judges_only(registry) -> None:
    assert tiny_model(registry.preset("tiny-qwen2.5-vl")) == ["results/engine/models/qwen2_5_vl"]
    assert tiny_model(registry.judge("tiny-judge")) == ["results/engine/models/qwen3_vl"]
    assert tiny_model(registry.preset("qwen3-vl-8b")) == [] == tiny_model(registry.judge("frame"))


def dry_run(*targets: str) -> str:
    out = subprocess.run(
        [SNAKEMAKE, "-n", "--forceall", "--workflow-profile", "none", *targets],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.slow
def test_rules_build_models_play_and_judge_the_checks_apart() -> None:
    """The engine-check table needs both tiny models built, the check run played and judged by
    the tiny judge only; the paper's main table needs nothing of the checks."""
    checks = dry_run("results/tables/engine_checks.csv")
    assert "output: results/engine/models/qwen2_5_vl" in checks
    assert "output: results/engine/models/qwen3_vl" in checks
    assert "output: results/runs/local/tiny-qwen2.5-vl/k3-hz0.33-base/shards/s0000.tsv" in checks
    judged = "results/judgements/tiny-judge/local/tiny-qwen2.5-vl/k3-hz0.33-base/shards/s0000.tsv"
    assert f"output: {judged}" in checks
    assert "results/judgements/frame/" not in checks and "results/scores/" not in checks
    main = dry_run("results/tables/frame/main.csv", "results/scores/state.tsv")
    assert "tiny" not in main and "results/engine/" not in main
    assert "output: results/runs/local/random/k3-hz0.33-base/shards/s0000.tsv" in main
