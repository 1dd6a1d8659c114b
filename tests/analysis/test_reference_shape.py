"""config/reference/paper.yaml has the shape of the paper's tables and its printed values."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from playsuite.analysis.reference import flatten, load_reference

REPO = Path(__file__).resolve().parents[2]
PAPER = REPO / "config" / "reference" / "paper.yaml"

PRESETS = {
    "qwen3-omni-30b-a3b",
    "qwen2.5-vl-7b",
    "gemma-4-26b-a4b-it",
    "qwen3-vl-8b",
    "qwen2.5-omni-7b",
    "gemma-4-e4b-it",
    "internvl2.5-8b",
    "gemma-3-12b-it",
    "ui-tars-1.5-7b",
    "evocua-8b",
    "opencua-7b",
    "gui-owl-1.5-8b",
    "os-atlas-pro-7b",
    "showui-2b",
}
JUDGES = {"qwen3.5-9b", "qwen3.5-27b", "gemma-4-31b-it", "molmo2-8b"}
GENRES = {
    "Simulation",
    "Strategy",
    "Shooter",
    "Survival",
    "Racing",
    "Action",
    "Puzzle",
    "Adventure",
}


@pytest.fixture(scope="module")
def ref() -> dict:
    load_reference(PAPER)  # validates against config/schemas/reference.schema.json
    return yaml.safe_load(PAPER.read_text())


def test_every_leaf_is_a_number() -> None:
    values = load_reference(PAPER)
    assert values and all(isinstance(v, float) for v in values.values())


def test_table2_is_14_models_by_2_corpora_by_3_statistics(ref: dict) -> None:
    t = ref["table2"]
    assert set(t) == {"itch", "pyweek"}
    for corpus in t.values():
        assert set(corpus) == PRESETS
        assert all(set(row) == {"k3", "k0", "partial_k0"} for row in corpus.values())
    assert len(flatten(t)) == 14 * 2 * 3


def test_genre_tables_have_the_papers_rows(ref: dict) -> None:
    t3 = ref["table3"]
    assert set(t3) == {"itch"} and set(t3["itch"]) == GENRES
    assert all(set(r) == {"N", "k0_mean", "k0_partial"} for r in t3["itch"].values())
    t11 = ref["table11"]
    assert set(t11) == {"itch", "pyweek"}
    for corpus in t11.values():
        assert set(corpus) == GENRES
        assert all(set(r) == {"N", "k0", "k3"} for r in corpus.values())
    # Table 3 and Table 11 print the same itch.io k=0 means and N.
    for g in GENRES:
        assert t3["itch"][g]["k0_mean"] == t11["itch"][g]["k0"]
        assert t3["itch"][g]["N"] == t11["itch"][g]["N"]
    # itch.io genres pass the 60-game cut; PyWeek's are the same genres with small N.
    assert min(r["N"] for r in t11["itch"].values()) >= 60
    assert max(r["N"] for r in t11["pyweek"].values()) < 60
    assert sum(r["N"] for r in t11["pyweek"].values()) <= 104


def test_table10_four_judges_and_the_human_row(ref: dict) -> None:
    a = ref["agreement"]
    assert set(a) == JUDGES | {"human", "validation"}
    for judge in JUDGES:
        assert {"milestone_agreement", "within_one"} <= set(a[judge])
    assert a["human"] == {"alpha": 0.624, "within_one": 93.0}
    assert a["qwen3.5-9b"]["alpha"] == 0.605
    v = a["validation"]
    assert v["videos"] == v["itch_videos"] + v["pyweek_videos"] == 60 and v["annotators"] == 6


def test_tables_4_and_5(ref: dict) -> None:
    assert len(ref["table4"]["itch"]) == 13
    assert sum(ref["table4"]["itch"].values()) == 200
    assert len(ref["table5"]) == 5
    assert ref["table5"]["construct_runtime"] == 225


def test_ablations_cover_the_papers_corpora(ref: dict) -> None:
    ab = ref["ablations"]
    assert set(ab["history"]) == {"itch", "pyweek"}
    assert all(set(c) == {"k0", "k3", "k5", "k10"} for c in ab["history"].values())
    assert set(ab["rate"]) == {"pyweek"}  # the action-rate ablation ran on PyWeek only
    assert set(ab["prompting"]) == {"itch", "pyweek"}
    for corpus in ab["prompting"].values():
        assert set(corpus) == {"strategy", "fewshot"}
    assert set(ref["stability"]["itch"]) == {"n50", "n200", "n500", "n2000"}


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("table2/itch/qwen3-omni-30b-a3b/k0", 0.84),
        ("table2/pyweek/gemma-4-26b-a4b-it/k3", 1.37),
        ("table2/pyweek/qwen3-omni-30b-a3b/partial_k0", 37.0),
        ("table2/itch/showui-2b/partial_k0", 8.4),
        ("table3/itch/Adventure/N", 2184),
        ("table11/pyweek/Strategy/k3", 0.702),
        ("genre_rank_agreement/itch/spearman_min", 0.88),
        ("stability/itch/n200/top3_share", 26.0),
        ("stability/itch/n2000/top1_share", 87.5),
        ("ablations/history/pyweek/k10", 0.740),
        ("ablations/rate/pyweek/hz3/change_in_gap_low", -0.027),
        ("ablations/rate/pyweek/hz0.33/gap", 0.165),
        ("ablations/prompting/itch/fewshot/variant", 0.504),
        ("cost/itch/qwen3-omni-30b-a3b/gpu_hours_per_1k", 105.5),
        ("efficiency/play/workers8_per_gpu_hour", 42.4),
        ("agreement/gemma-4-31b-it/within_one", 77.3),
        ("curation/total/evaluated", 5734),
    ],
)
def test_spot_values_are_as_published(key: str, value: float) -> None:
    assert load_reference(PAPER)[key] == pytest.approx(value)


def test_shares_are_percent_throughout() -> None:
    values = load_reference(PAPER)
    shares = [
        v
        for k, v in values.items()
        if k.endswith(("partial_k0", "_partial", "_share", "within_one", "milestone_agreement"))
    ]
    assert shares and all(1.0 < v <= 100.0 for v in shares)
