"""Planted-values check: scores planted at Table 2's published values, run through the real
main table, game bootstrap and reproduction report, land every published value inside its
measured 95 % interval, and a deliberately wrong published value outside."""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.main_results import main_results
from playsuite.analysis.reference import load_reference, main_cells, reproduction_table
from playsuite.testing.synthetic_scores import SyntheticSpec, plant_table2, synthetic_scores

PAPER = Path(__file__).resolve().parents[2] / "config" / "reference" / "paper.yaml"
K0, K3 = "k0-hz0.33-base", "k3-hz0.33-base"


@pytest.fixture(scope="module")
def report():
    published = {k: v for k, v in load_reference(PAPER).items() if k.startswith("table2/")}
    presets = sorted({k.split("/")[2] for k in published})
    spec = SyntheticSpec(
        presets={p: ("VLM", 0.0) for p in presets},
        conditions=(K0, K3),
        corpora={"itch": 500, "pyweek": 104},  # PyWeek at the paper's size: wider intervals
        planted=plant_table2(published, K3, K0),
        failure_rate=0.03,
        seed=3,
    )
    table = main_results(synthetic_scores(spec), K3, K0, BootstrapSpec(resamples=400, seed=1))
    measured = main_cells(table)
    return published, measured


def test_every_table2_value_lies_inside_its_measured_interval(report) -> None:
    published, measured = report
    table = reproduction_table(published, measured)
    assert len(table) == 14 * 2 * 3
    assert table["measured"].notna().all()
    outside = table[table["inside"] != "yes"]
    assert outside.empty, outside[["cell", "published", "measured", "low", "high"]]
    # The intervals are informative, not everything-wide.
    width = (table["high"] - table["low"])[table["cell"].str.endswith("/k0")]
    assert (width < 0.5).all()


@pytest.mark.parametrize(
    ("cell", "shift"),
    [("table2/itch/qwen3-vl-8b/k0", 0.25), ("table2/pyweek/evocua-8b/partial_k0", -15.0)],
)
def test_a_wrong_published_value_is_flagged_outside(report, cell: str, shift: float) -> None:
    published, measured = report
    wrong = {**published, cell: published[cell] + shift}
    table = reproduction_table(wrong, measured).set_index("cell")
    assert table.at[cell, "inside"] == "no"
    assert (table.drop(index=cell)["inside"] == "yes").all()
