"""Ablations in the plan: the runs an ablation file asks for, and the errors a file the project
cannot apply raises when the plan is made, before any job starts."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from playsuite.analysis.ablations import load_ablation
from playsuite.config import ConfigError, load_validated
from playsuite.planning.ablations import ablation_plan, check_ablation, check_ablations
from playsuite.planning.play import run_games
from playsuite.registry import load_registry

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
HOT = "k0-hz0.33-base+sampling.temperature=1"


@pytest.fixture(scope="module")
def default() -> dict:
    return load_validated(REPO / "config" / "config.yaml", "config")


@pytest.fixture(scope="module")
def registry():
    return load_registry(REPO / "config" / "models.yaml")


def with_ablation(config: dict, tmp_path: Path, text: str) -> dict:
    path = tmp_path / "extra.yaml"
    path.write_text(text)
    out = copy.deepcopy(config)
    out["analysis"]["ablations"] = [str(path)]
    return out


def test_default_plays_the_temperature_ablation_on_four_games(default: dict, registry) -> None:
    runs = run_games(default, registry)
    for preset in default["presets"]:
        assert len(runs[("local", preset, HOT)]) == 4
        # the null value is the base run itself: it keeps every game of the main run
        assert len(runs[("local", preset, "k0-hz0.33-base")]) == 8


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("axis: sampling.temprature\nvalues: [0.1, 0.7]\n", "did you mean 'sampling.temperature'"),
        ("axis: observation.size\nvalues: [1, 2]\n", "not a setting a condition can set"),
        ("axis: sampling.temperature\nvalues: [0.5, 5]\n", "temperature=5 cannot be applied"),
        ("axis: play.steps\nvalues: [3, 2.5]\n", "is not of type 'integer'"),
        ("axis: history_k\nvalues: [0, 3]\nreference: 5\n", "reference 5 is not one of"),
        ("axis: judge\nvalues: [frame, qwen3.5-9b]\n", "not judges of this run"),
        ("axis: hz\nvalues: [0.33, 3]\npresets: [nobody]\n", "not in the model registry"),
        ("axis: hz\nvalues: [0.33, 3]\npresets: {family: [VLA]}\n", "select none"),
        ("axis: hz\nvalues: [0.33, 3]\nconditions: [k0-hz3-base, k0-hz1-base]\n", "schema"),
    ],
)
def test_an_ablation_that_cannot_be_applied_fails_the_plan(
    default: dict, registry, tmp_path: Path, text: str, message: str
) -> None:
    config = with_ablation(default, tmp_path, text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_games(config, registry)


def test_a_judge_ablation_plays_its_condition_once(default: dict, registry, tmp_path) -> None:
    config = with_ablation(
        default, tmp_path, "axis: judge\nvalues: [frame, state]\nbase: k3-hz0.33-base\n"
    )
    config["judges"] = ["frame", "state"]
    ab = load_ablation(config["analysis"]["ablations"][0])
    check_ablation(ab, config, registry)
    plan = ablation_plan(ab, {"local": ["a", "b"]}, config["presets"], registry)
    assert {cond for _, _, cond, _ in plan} == {"k3-hz0.33-base"}
    assert len(plan) == len(config["presets"])


@pytest.mark.slow
def test_the_workflow_refuses_a_bad_ablation_before_any_job(default, tmp_path: Path) -> None:
    """`snakemake -n` with a config whose ablation names a setting nobody can apply stops at
    parse time and says which."""
    (tmp_path / "bad.yaml").write_text("axis: sampling.heat\nvalues: [0, 1]\n")
    extra = tmp_path / "extra.yaml"
    ablations = [*default["analysis"]["ablations"], str(tmp_path / "bad.yaml")]
    extra.write_text(yaml.safe_dump({"analysis": {"ablations": ablations}}))
    done = subprocess.run(
        [SNAKEMAKE, "-n", "--quiet", "--configfile", str(extra)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert "sampling.heat" in done.stdout + done.stderr
    assert "not a setting a condition can set" in done.stdout + done.stderr


@pytest.mark.slow
def test_a_new_axis_is_played_judged_and_drawn(repo: Path, tmp_path: Path) -> None:
    """End to end from one new ablation file: the action budget (``play.steps``) over a fixture
    game, played by the random baseline, judged by the frame judge, tabulated and drawn."""
    work = tmp_path / "wf"
    shutil.copytree(
        repo,
        work,
        ignore=shutil.ignore_patterns(
            ".venv", ".venv-engine", "results", ".snakemake", ".git", "*.egg-info"
        ),
    )
    probe = {
        "title": "Probe game",
        "source": "local",
        "package": str(repo / "tests" / "fixtures" / "probe_game"),
        "runtime": "pygame",
        "entry": "main.py",
        "controls": "Arrow keys move the square, Space scores a point.",
    }
    corpus = {"games": [{"id": g, **probe} for g in ("probe-a", "probe-b")]}
    (work / "test_corpus.yaml").write_text(yaml.safe_dump(corpus))
    (work / "steps.yaml").write_text(
        "name: budget\naxis: play.steps\nvalues: [null, 2]\ngames: all\n"
    )
    config = {
        "models": "config/models.yaml",
        "corpora": {"test": {"table": "test_corpus.yaml"}},
        "presets": ["random"],
        "conditions": ["k0-hz0.33-base"],
        "judges": ["frame"],
        "play": {"shard_size": 8, "workers": 1, "steps": 4, "wall_timeout_s": 120},
        "analysis": {"ablations": ["steps.yaml"], "bootstrap": {"resamples": 100}},
    }
    (work / "test_config.yaml").write_text(yaml.safe_dump(config))
    target = "results/figures/frame/ablation_budget.pdf"
    cmd = [SNAKEMAKE, target, "--cores", "2", "--workflow-profile", "none"]
    cmd += ["--replace-workflow-config", "--configfile", "test_config.yaml"]
    done = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    cond = "k0-hz0.33-base+play.steps=2"
    meta = json.loads((work / "results/runs/test/random" / cond / "probe-a/meta.json").read_text())
    assert meta["condition"] == cond and meta["limits"]["max_steps"] == 2
    assert meta["condition_settings"] == {
        "history_k": 0,
        "hz": 0.33,
        "variant": "base",
        "play.steps": 2,
    }
    base = json.loads(
        (work / "results/runs/test/random/k0-hz0.33-base/probe-a/meta.json").read_text()
    )
    assert base["limits"]["max_steps"] == 4  # the run's own budget where the value is null
    assert (work / f"results/judgements/frame/test/random/{cond}/probe-a.json").exists()
    table = (work / "results/tables/frame/ablation_budget.csv").read_text()
    assert f",play.steps,2,,{cond},k0-hz0.33-base,random,2," in table
    assert (work / "results/figures/frame/ablation_budget.png").stat().st_size > 1000


def test_analysing_given_scores_checks_a_judge_ablation_against_them(
    default: dict, registry, tmp_path: Path
) -> None:
    config = with_ablation(default, tmp_path, "axis: judge\nvalues: [mine, theirs]\n")
    config["analysis"]["scores"] = {"mine": "mine.csv"}
    with pytest.raises(ConfigError, match=r"judges \['theirs'\] .*analysis\.scores"):
        check_ablations(config, registry)
    config["analysis"]["scores"]["theirs"] = "theirs.csv"
    assert [ab.name for ab in check_ablations(config, registry)] == ["extra"]
