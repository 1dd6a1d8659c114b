"""The horizon rules in a copy of the workflow: played runs -> annotation jobs (the stand-in model
server, a protocol test double, behind horizon.server_argv) -> the question set -> each preset's
answers -> the accuracy table -> its correlation with the progress levels of a given scores
table (``analysis.scores``: the workflow is then the analysis stage, and plays nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from playsuite.records.horizon import read_annotation, read_answers, read_questions
from playsuite.records.manifest import EpisodeSummary, write_manifest
from playsuite.records.scores import scores_frame, write_scores
from playsuite.testing.standin import standin_argv
from playsuite.testing.synthetic_episode import idle_script, playing_script, write_episode

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
CORPUS = """\
games:
  - {id: toy-a, title: Toy A, source: local, package: toy, runtime: pygame, entry: a.py,
     genre: Platformer, controls: Arrows move; Space jumps.}
  - {id: toy-b, title: Toy B, source: local, package: toy, runtime: pygame, entry: b.py,
     genre: Puzzle}
"""
PRESETS = ["qwen2.5-vl-7b", "qwen3-vl-8b"]
CONDITION = "k0-hz0.33-base"
RULES = [
    "horizon",
    "annotate_horizon_run",
    "build_horizon_questions",
    "answer_horizon_questions",
    "tabulate_horizon_accuracy",
    "correlate_horizon_progress",
]


@pytest.mark.slow
def test_horizon_targets(repo_copy: Path) -> None:
    work = repo_copy
    (work / "test_corpus.yaml").write_text(CORPUS)
    config = {
        "corpora": {"test": {"table": "test_corpus.yaml"}},
        "presets": PRESETS,
        "conditions": [CONDITION],
        "judges": ["frame"],
        "analysis": {"scores": {"frame": "given_scores.tsv"}},
        "horizon": {
            "annotator": "qwen2.5-vl-7b",
            "runs": [f"test/{p}/{CONDITION}" for p in PRESETS],
            "presets": PRESETS,
            "judge": "frame",
            "goal_s": [6, 12],
            "strategy_s": [12, 24],
            "server_argv": standin_argv("{uds}", model="{preset}"),
            "ready_timeout_s": 60,
        },
    }
    (work / "test_config.yaml").write_text(yaml.safe_dump(config))
    score_rows = [
        {
            "corpus": "test",
            "preset": preset,
            "family": "VLM",
            "condition": CONDITION,
            "history_k": 0,
            "hz": 0.33,
            "variant": "base",
            "game": game,
            "genre": "Puzzle",
            "judge": "frame",
            "level": level,
            "status": "ok",
        }
        for preset, levels in zip(PRESETS, ([1, 2], [0, 1]), strict=True)
        for game, level in zip(("toy-a", "toy-b"), levels, strict=True)
    ]
    write_scores(scores_frame(score_rows), work / "given_scores.tsv")
    for preset in PRESETS:  # stand in for the play stage
        run = Path("results/runs/test") / preset / CONDITION
        rows = []
        for game, script in (("toy-a", playing_script()), ("toy-b", idle_script(12.0))):
            write_episode(work / run / game, script, corpus="test", game=game)
            rows.append(
                EpisodeSummary(
                    game=game,
                    status="ok",
                    steps=4,
                    frames=30,
                    t_game=12.0,
                    wall_s=12.0,
                    invalid_rate=0.0,
                    episode_dir=str(run / game),
                )
            )
        write_manifest(work / run / "shards/s0000.tsv", rows)
    out = subprocess.run(
        [
            SNAKEMAKE,
            "horizon",
            "--cores",
            "2",
            "--configfile",
            "test_config.yaml",
            "--allowed-rules",
            *RULES,
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    for preset in PRESETS:
        index = work / f"results/horizon/annotations/test/{preset}/{CONDITION}.tsv"
        assert index.is_file()
        doc = read_annotation(work / f"results/runs/test/{preset}/{CONDITION}/toy-a")
        assert doc["status"] == "ok" and doc["annotator"] == "qwen2.5-vl-7b"
        assert len(doc["goals"]) >= 2
        answers = read_answers(work / f"results/horizon/answers/{preset}.json")
        assert answers["preset"] == preset
    questions = read_questions(work / "results/horizon/questions.json")
    assert len(answers["answers"]) == len(questions["questions"]) > 0
    accuracy = pd.read_csv(work / "results/tables/horizon_accuracy.tsv", sep="\t")
    assert set(accuracy["preset"]) == set(PRESETS) and "all" in set(accuracy["task"])
    correlation = pd.read_csv(work / "results/tables/horizon_correlation.tsv", sep="\t")
    assert set(correlation["preset"]) == set(PRESETS)
    assert correlation.set_index("preset")["online_progress"].to_dict() == {
        PRESETS[0]: 1.5,
        PRESETS[1]: 0.5,
    }
    assert correlation["spearman_rho"].isna().all()  # two models: no rank correlation
    assert (work / "results/tables/horizon_correlation.md").is_file()
    logs = work / "results/logs/horizon"
    assert (logs / "questions.log").is_file() and (logs / "accuracy.log").is_file()
    assert (work / f"results/benchmarks/horizon/answer/{PRESETS[0]}.tsv").is_file()


@pytest.mark.slow
def test_embedded_default_plans_the_horizon_target(repo: Path) -> None:
    """config/config.yaml's horizon: section plans, under `snakemake horizon` only, the play of
    the annotated run, the tiny model's build, one annotation job, the questions, one answer job
    and both tables; `all` is unchanged."""
    out = subprocess.run(
        [SNAKEMAKE, "horizon", "-n", "--quiet", "rules"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    counts = _job_counts(out.stdout)
    assert counts["annotate_horizon_run"] == 1 and counts["answer_horizon_questions"] == 1
    assert counts["build_horizon_questions"] == 1 and counts["build_tiny_model"] == 1
    assert counts["tabulate_horizon_accuracy"] == counts["correlate_horizon_progress"] == 1
    assert counts["play_shard"] >= 1  # the annotated run is played first
    default = subprocess.run(
        [SNAKEMAKE, "-n", "--quiet", "rules", "--forceall"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert default.returncode == 0, default.stdout + default.stderr
    assert not [rule for rule in _job_counts(default.stdout) if "horizon" in rule]


def _job_counts(text: str) -> dict[str, int]:
    """Snakemake's job table (``--quiet rules``): rule -> count."""
    return {
        parts[0]: int(parts[1])
        for line in text.splitlines()
        if len(parts := line.split()) == 2 and parts[1].isdigit()
    }
