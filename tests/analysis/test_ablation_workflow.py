"""A new axis from one new file: plan -> table -> figure, with real Snakemake on a copy of the
workflow.

The ablation (``sampling.top_p``, an axis no code names) and the run's config that lists it are
written by the test; nothing else changes. The dry run plans its play and judge shards under the
new conditions' names; given their scores (synthetic, as tests/analysis/test_analysis_workflow.py
places them), the analysis rule draws its table and figure with the generic statistic.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from playsuite.testing.repo import copy_repo
from playsuite.testing.synthetic_scores import SyntheticSpec, synthetic_scores, write_scores_tsv

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
LOW, HIGH = "k0-hz0.33-base+sampling.top_p=0.5", "k0-hz0.33-base+sampling.top_p=0.9"
ABLATION = """\
name: top_p
title: Nucleus sampling
axis: sampling.top_p
values: [null, 0.5, 0.9]
reference: null
base: k0-hz0.33-base
presets: "*"
corpora: "*"
games: {count: 6, seed: 1}
"""
RUN = """\
analysis:
  ablations: [config/ablations/top_p.yaml]
  bootstrap: {resamples: 200}
"""


def snake(work: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [SNAKEMAKE, "--configfile", "top_p_run.yaml", "--cores", "2", *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_a_new_axis_runs_from_a_new_file_alone(repo: Path, tmp_path: Path) -> None:
    work = copy_repo(repo, tmp_path / "wf")
    (work / "config/ablations/top_p.yaml").write_text(ABLATION)
    (work / "top_p_run.yaml").write_text(RUN)

    # plan: both new values are played (and judged) by every preset; null is the base run
    plan = snake(work, "-n", "results/scores/frame.tsv")
    assert plan.returncode == 0, plan.stderr[-3000:]
    for cond in (LOW, HIGH):
        for preset in ("random", "explorer"):
            assert f"results/runs/local/{preset}/{cond}/" in plan.stdout, (cond, preset)
            assert f"results/judgements/frame/local/{preset}/{cond}/" in plan.stdout

    # table and figure, from scores under the new conditions' names
    spec = SyntheticSpec(
        presets={"random": ("baseline", -0.5), "explorer": ("baseline", 0.0)},
        conditions=("k0-hz0.33-base", "k3-hz0.33-base", LOW, HIGH),
        corpora={"local": 12},
        condition_effects={HIGH: 0.8},
        judge="frame",
        seed=2,
    )
    scores = synthetic_scores(spec)
    # the new values were played on a subset (as the plan draws one): four games lack them
    unplayed = sorted(scores["game"].unique())[:4]
    scores = scores[~(scores["condition"].isin([LOW, HIGH]) & scores["game"].isin(unplayed))]
    write_scores_tsv(scores, str(work / "results/scores/frame.tsv"))
    target = "results/figures/frame/ablation_top_p.pdf"
    run = snake(work, target, "--allowed-rules", "ablation_figure")
    assert run.returncode == 0, run.stderr[-3000:]
    assert (work / "results/figures/frame/ablation_top_p.png").stat().st_size > 0
    table = pd.read_csv(work / "results/tables/frame/ablation_top_p.csv")
    pooled = table[table["model"] == "all models"].set_index("value")
    assert list(pooled.index) == ["default", "0.5", "0.9"]
    assert set(table["condition"]) == {"k0-hz0.33-base", LOW, HIGH}
    assert set(table["axis"]) == {"sampling.top_p"}
    assert pooled.loc["0.9", "delta"] > pooled.loc["0.5", "delta"]  # the planted effect
    assert pooled.loc["0.9", "delta low"] > 0
    assert pd.isna(pooled.loc["default", "delta"])
    assert (pooled["games"] == 8).all()  # games played under every value, nothing else
    md = (work / "results/tables/frame/ablation_top_p.md").read_text()
    assert "sampling.top_p" in md
