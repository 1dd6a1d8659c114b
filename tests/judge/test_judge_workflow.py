"""The judge rules in a copy of the workflow: fixture episodes -> shard jobs -> scores tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from playsuite.testing.synthetic_episode import idle_script, playing_script, write_episode

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
CORPUS = """\
games:
  - {id: toy-a, title: Toy A, source: local, package: toy, runtime: pygame, entry: a.py,
     genre: Action, probes: {score: game.score, level: game.area}}
  - {id: toy-b, title: Toy B, source: local, package: toy, runtime: pygame, entry: b.py,
     genre: Puzzle}
"""
CONFIG = """\
corpora: {test: {table: test_corpus.yaml}}
presets: [random]
conditions: [k0-hz0.33-base]
judges: [frame]
"""


@pytest.mark.slow
def test_judge_rules_make_scores_tables(repo_copy: Path) -> None:
    work = repo_copy
    (work / "test_corpus.yaml").write_text(CORPUS)
    (work / "test_config.yaml").write_text(CONFIG)
    runs = work / "results/runs/test/random/k0-hz0.33-base"
    write_episode(runs / "toy-a", playing_script())
    write_episode(runs / "toy-b", idle_script(), status="crashed")
    # Stand in for the play stage: one play shard whose manifest lists the two fixture episodes.
    manifest = "results/runs/test/random/k0-hz0.33-base/shards/s0000.tsv"
    rows = "".join(f"{g}\tok\t{runs / g}\n" for g in ("toy-a", "toy-b"))
    (work / manifest).parent.mkdir(parents=True)
    (work / manifest).write_text("game\tstatus\tepisode_dir\n" + rows)
    common = work / "rules/common.smk"
    text = common.read_text()
    start = text.index("def play_targets():")
    end = text.index("def judge_targets():")
    stub = f"def play_targets():\n    return [{manifest!r}]\n\n\n"
    common.write_text(text[:start] + stub + text[end:])

    base = [SNAKEMAKE, "--configfile", "test_config.yaml"]
    dry = subprocess.run(
        [*base, "-n", "results/scores/frame.tsv", "results/scores/state.tsv"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert dry.returncode == 0, dry.stderr
    assert "judge_shard" in dry.stdout and "judge_scores" in dry.stdout
    out = subprocess.run(
        [
            *base,
            "--cores",
            "2",
            "results/scores/frame.tsv",
            "results/scores/state.tsv",
            "--allowed-rules",  # the stand-in play manifest is never remade
            "judge_shard",
            "judge_scores",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    frame = pd.read_csv(work / "results/scores/frame.tsv", sep="\t").set_index("game")
    assert list(frame.index) == ["toy-a", "toy-b"]
    assert frame.at["toy-a", "level"] == 3 and frame.at["toy-a", "status"] == "ok"
    assert frame.at["toy-b", "status"] == "crashed"  # kept, excluded from means downstream
    assert frame.at["toy-a", "genre"] == "Action" and frame.at["toy-a", "family"] == "baseline"
    state = pd.read_csv(work / "results/scores/state.tsv", sep="\t")
    assert list(state["game"]) == ["toy-a"]  # only the game that declares probes
    judgement = work / "results/judgements/frame/test/random/k0-hz0.33-base/toy-a.json"
    assert judgement.exists()
    # every judge job attempt left a cost record apart from the play jobs' (docs/analysis.md)
    (record,) = (work / "results/judge_costs/frame/test/random/k0-hz0.33-base").glob("s0000.*.tsv")
    row = pd.read_csv(record, sep="\t").iloc[0]
    assert (row["judge"], row["status"], row["gpus"]) == ("frame", "ok", 0)
    # Figure 10c's input from those records (analysis.efficiency.judge: frame in config.yaml)
    out = subprocess.run(
        [
            *base,
            "--cores",
            "1",
            "results/benchmarks/judge.tsv",
            "--allowed-rules",
            "efficiency_judge",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    (speed,) = pd.read_csv(work / "results/benchmarks/judge.tsv", sep="\t").to_dict("records")
    assert speed["judge"] == "frame" and speed["videos"] == 2  # both videos were judged
    assert speed["videos_per_hour"] > 0 and np.isnan(speed["videos_per_gpu_hour"])  # no GPU
