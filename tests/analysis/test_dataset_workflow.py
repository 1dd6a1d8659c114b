"""The workflow target `results/datasets/{judge}`: real Snakemake in a copy of the repository
exports the episodes of a judge's scores table, with its log and benchmark; `all` leaves it out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from playsuite.judge.result import empty_milestones, judgement, write_judgement
from playsuite.records.scores import scores_frame, write_scores
from playsuite.testing.synthetic_episode import playing_script, write_episode

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
COND = "k0-hz0.33-base"


def snake(work: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [SNAKEMAKE, *args, "--cores", "1", "--configfile", "mine.yaml"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_the_dataset_target_exports_a_judged_campaign(repo_copy: Path) -> None:
    work = repo_copy
    (work / "mine.yaml").write_text(yaml.safe_dump({"analysis": {"scores": {"mine": "mine.tsv"}}}))
    rows = [
        {"corpus": "local", "preset": "random", "family": "baseline", "condition": COND,
         "history_k": 0, "hz": 0.33, "variant": "base", "game": game, "genre": "Platformer",
         "judge": "mine", "level": level, "status": status}
        for game, level, status in (("tiny-a", 0, "ok"), ("tiny-z", None, "missing_episode"))
    ]  # fmt: skip
    write_scores(scores_frame(rows), work / "mine.tsv")
    episode = work / "results/runs/local/random" / COND / "tiny-a"
    write_episode(episode, playing_script())
    write_judgement(
        work / "results/judgements/mine/local/random" / COND / "tiny-a.json",
        judgement(empty_milestones(), "mine"),
    )

    plan = snake(work, "-n")  # the default target: every analysis output, not the dataset
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert "export_dataset" not in plan.stdout

    done = snake(work, "results/datasets/mine")
    assert done.returncode == 0, done.stderr[-3000:]
    out = work / "results/datasets/mine"
    card = (out / "README.md").read_text()
    assert "PlaySuite episodes judged by mine" in card and "rule `export_dataset`" in card
    assert "tiny-z" in card  # left out: no episode directory
    episodes = pd.read_parquet(out / "episodes")
    assert episodes["game"].tolist() == ["tiny-a"] and episodes["level"].tolist() == [0]
    assert episodes["genre"].tolist() == ["Platformer"]
    assert len(pd.read_parquet(out / "frames")) == 24  # 24 s of game time at 1 fps
    log = (work / "results/logs/analysis/mine/dataset.log").read_text()
    assert "1 episodes ->" in log and "left out" in log and "tiny-z" in log
    assert (work / "results/benchmarks/analysis/mine/dataset.tsv").exists()
