"""Measured cells are keyed, scaled and oriented as the paper prints them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from playsuite.analysis.ablations import Ablation
from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.efficiency import read_benchmarks
from playsuite.analysis.history import ALL_MODELS
from playsuite.analysis.prompting import prompting_effects
from playsuite.analysis.reference import (
    ablation_cells,
    efficiency_cells,
    funnel_cells,
    judge_agreement_cells,
    stability_cells,
)
from playsuite.catalog.filters import Decision
from playsuite.catalog.funnel import funnel_table
from playsuite.catalog.ingest import RawGame
from playsuite.testing.synthetic_scores import SyntheticSpec, synthetic_scores

RATE = Ablation(
    "rate",
    "rate",
    "rate",
    ("k0-hz0.33-base", "k3-hz0.33-base", "k0-hz3-base", "k3-hz3-base"),
    "k0-hz0.33-base",
    "*",
    "*",
    None,
    0,
)
PROMPTS = ("k3-hz0.33-base", "k3-hz0.33-strategy", "k3-hz0.33-fewshot")
PROMPTING = Ablation("prompting", "prompting", "p", PROMPTS, PROMPTS[0], "*", "*", None, 0)


def test_rate_cells_take_the_papers_orientation() -> None:
    table = pd.DataFrame(
        [
            {"corpus": "pyweek", "hz": 0.33, "reference": True, "without": 0.94, "with": 0.78,
             "overall": 0.86, "gap": -0.16, "gap low": -0.2, "gap high": -0.1},
            {"corpus": "pyweek", "hz": 3.0, "reference": False, "without": 1.04, "with": 0.82,
             "overall": 0.88, "gap": -0.21, "gap low": -0.3, "gap high": -0.15,
             "change": -0.05, "change low": -0.13, "change high": 0.03, "pearson r": 0.9,
             "pearson r low": 0.8, "pearson r high": 0.95},
        ]
    )  # fmt: skip
    cells = ablation_cells(RATE, table)
    gap = cells["ablations/rate/pyweek/hz3/gap"]
    assert (gap.value, gap.low, gap.high) == (0.21, 0.15, 0.3)  # without - with
    change = cells["ablations/rate/pyweek/hz3/change_in_gap"]
    assert (change.value, change.low, change.high) == (0.05, -0.03, 0.13)
    assert cells["ablations/rate/pyweek/hz3/change_in_gap_low"].value == -0.03
    assert cells["ablations/rate/pyweek/hz3/overall"].value == 0.88
    assert cells["ablations/rate/pyweek/hz0.33/k3"].value == 0.78
    assert "ablations/rate/pyweek/hz0.33/change_in_gap" not in cells


def test_shares_become_percent() -> None:
    agreement = pd.DataFrame(
        [
            {"comparison": "human-human", "raters": 6, "videos": 60, "alpha": 0.62,
             "within_one": 0.93, "exact": 0.5, "milestone_agreement": 0.8},
            {"comparison": "qwen3.5-9b-human", "raters": 7, "videos": 60, "alpha": 0.6,
             "within_one": 0.904, "exact": 0.4, "milestone_agreement": 0.844},
        ]
    )  # fmt: skip
    cells = judge_agreement_cells(agreement)
    assert cells["agreement/human/within_one"].value == pytest.approx(93.0)
    assert cells["agreement/qwen3.5-9b/milestone_agreement"].value == pytest.approx(84.4)
    assert cells["agreement/qwen3.5-9b/alpha"].value == 0.6
    assert cells["agreement/validation/annotators"].value == 6
    stability = pd.DataFrame(
        [{"corpus": "itch", "n": 200, "top": 3, "spearman median": 0.93, "top1 share": 0.555,
          "top1 low": 0.5, "top1 high": 0.6, "topk share": 0.26, "topk low": 0.2,
          "topk high": 0.3}]
    )  # fmt: skip
    cells = stability_cells(stability)
    top3 = cells["stability/itch/n200/top3_share"]
    assert (top3.value, top3.low, top3.high) == pytest.approx((26.0, 20.0, 30.0))
    assert cells["stability/itch/n200/spearman_median"].low is None


def test_prompting_means_are_on_the_matched_cells() -> None:
    spec = SyntheticSpec(
        presets={"a": ("VLM", 0.5), "b": ("VLM", 0.0)},
        conditions=PROMPTS,
        corpora={"itch": 120},
        condition_effects={"k3-hz0.33-fewshot": -0.4},
        failure_rate=0.1,
        seed=7,
    )
    effects = prompting_effects(synthetic_scores(spec), PROMPTING, BootstrapSpec(resamples=100))
    pooled = effects[effects["model"] == ALL_MODELS].set_index("variant")
    for variant in ("strategy", "fewshot"):
        row = pooled.loc[variant]
        assert row["variant mean"] - row["reference mean"] == pytest.approx(row["delta"])
        assert row["reference mean low"] <= row["reference mean"] <= row["reference mean high"]
    assert pooled.at["fewshot", "delta"] < pooled.at["strategy", "delta"]
    cells = ablation_cells(PROMPTING, effects)
    assert (
        cells["ablations/prompting/itch/fewshot/base"].value
        == pooled.at["fewshot", "reference mean"]
    )


def test_funnel_cells_read_the_catalog_funnel() -> None:
    stages = ["", "", "python3", "python3", "not_a_game", "construct_runtime", "", "drag_only"]
    games = [RawGame(f"pyweek-{i}", "pyweek", str(i), f"g{i}") for i in range(len(stages))]
    decisions = {g.id: Decision(g.id, g.source, s) for g, s in zip(games, stages, strict=True)}
    funnel = funnel_table(games, decisions)
    cells = funnel_cells({"pyweek": funnel})
    assert cells["curation/pyweek/pool"].value == 8
    assert cells["curation/pyweek/after_python3"].value == 6
    assert cells["curation/pyweek/after_launch"].value == 3
    assert cells["table5/not_a_game"].value == 1 and cells["table5/drag_only"].value == 1
    assert cells["table5/construct_runtime"].value == 1
    assert cells["table5/gamepad_required"].value == 0
    assert "table5/python3" not in cells  # a metadata filter, not a Table 5 reason


def test_efficiency_cells_from_the_benchmark_outputs(tmp_path) -> None:
    (tmp_path / "launch.tsv").write_text("runtime\tgame\tlaunch_s\npygame\ta\t6\nbrowser\tb\t10\n")
    (tmp_path / "throughput.tsv").write_text(
        "workers\tepisodes_per_hour\n1\t6.5\n4\t20\n8\t41\n8\t43\n"
    )
    cells = efficiency_cells(read_benchmarks(tmp_path))
    assert cells["efficiency/launch/optimized_s"].value == 8.0
    assert cells["efficiency/play/workers1_per_gpu_hour"].value == 6.5
    assert cells["efficiency/play/workers8_per_gpu_hour"].value == 42.0
    assert not any(k.startswith("efficiency/judge") for k in cells)
    assert "efficiency/launch/naive_s" not in cells  # no fixed-wait launches in this table
    # the launch test's table (rule efficiency_launch): each launcher on its own cell
    (tmp_path / "launch.tsv").write_text(
        "game\truntime\tlauncher\tlaunch_s\tstatus\n"
        "a\tbrowser\tfixed\t90\tok\na\tbrowser\tpolling\t9\tok\n"
        "a\tbrowser\treuse\t3\tok\nb\tbrowser\treuse\t5\tok\nc\tbrowser\treuse\t\tfailed\n"
    )
    cells = efficiency_cells(read_benchmarks(tmp_path))
    assert cells["efficiency/launch/optimized_s"].value == 4.0
    assert cells["efficiency/launch/naive_s"].value == 90.0


def test_table4_cells_from_the_harm_tables() -> None:
    from playsuite.analysis.reference import RunContext, harm_cells, why_not_measured

    validated = pd.DataFrame(
        {
            "category": ["Firearms Individual Violence", "Accidents"],
            "candidates": [20, 3],
            "games": [13, 2],
            "failed": [0, 1],
        }
    )
    unvalidated = validated.assign(games=np.nan)
    cells = harm_cells({"itch": validated, "sample": unvalidated})
    assert cells["table4/itch/firearms_individual_violence"].value == 13
    assert cells["table4/itch/accidents"].value == 2
    assert not any(k.startswith("table4/sample") for k in cells)  # not validated: no counts
    ctx = RunContext(harm={"sample"})
    assert why_not_measured("table4/sample/accidents", ctx).startswith("candidates not validated")
    assert why_not_measured("table4/itch/accidents", ctx).startswith("no harm table read")
