"""The generic ablation statistic, and the paper's three ablations as instances of it.

The shipped history, rate and prompting files now declare an axis and its values; the old files
listed their conditions. On fixed synthetic scores both forms must give exactly the numbers the
old computation gave, and the generic statistic must give the history and prompting figures'
numbers too.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from playsuite.analysis.ablations import ablation_scores, judge_ablation_scores, load_ablation
from playsuite.analysis.action_rate import action_rate
from playsuite.analysis.axis_effects import ablation_arms, axis_effects
from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.history import ALL_MODELS, history_curves
from playsuite.analysis.prompting import prompting_effects
from playsuite.testing.synthetic_scores import SyntheticSpec, synthetic_scores

REPO = Path(__file__).resolve().parents[2]
SPEC = BootstrapSpec(resamples=400, seed=3)

#: The files as they were before ablations were declared by axis (conditions listed).
OLD = {
    "history": (
        "name: history\nkind: history\n"
        "conditions: [k0-hz0.33-base, k3-hz0.33-base, k5-hz0.33-base, k10-hz0.33-base]\n"
        "presets: '*'\ncorpora: '*'\ngames: {count: 200, seed: 0}\n"
    ),
    "rate": (
        "name: rate\nkind: rate\n"
        "conditions: [k0-hz0.33-base, k3-hz0.33-base, k0-hz3-base, k3-hz3-base]\n"
        "reference: k0-hz0.33-base\npresets: '*'\ncorpora: '*'\ngames: {count: 200, seed: 0}\n"
    ),
    "prompting": (
        "name: prompting\nkind: prompting\n"
        "conditions: [k3-hz0.33-base, k3-hz0.33-strategy, k3-hz0.33-fewshot]\n"
        "reference: k3-hz0.33-base\npresets: {family: [VLM, baseline], template: standard}\n"
        "corpora: '*'\ngames: {count: 200, seed: 0}\n"
    ),
}
CONDITIONS = (
    "k0-hz0.33-base",
    "k3-hz0.33-base",
    "k5-hz0.33-base",
    "k10-hz0.33-base",
    "k0-hz3-base",
    "k3-hz3-base",
    "k3-hz0.33-strategy",
    "k3-hz0.33-fewshot",
)


@pytest.fixture(scope="module")
def scores() -> pd.DataFrame:
    spec = SyntheticSpec(
        presets={"m1": ("VLM", 0.2), "m2": ("VLM", -0.3), "m3": ("CUA", 0.0)},
        conditions=CONDITIONS,
        corpora={"itch": 60, "pyweek": 40},
        condition_effects={"k3-hz0.33-base": 0.2, "k3-hz0.33-fewshot": -0.2, "k3-hz3-base": 0.4},
        failure_rate=0.1,
        seed=4,
    )
    return synthetic_scores(spec)


def _both(name: str, tmp_path: Path, every_preset: bool = False):
    """(old form, shipped file); with ``every_preset`` both select every preset of the table
    (the synthetic presets are not in the registry that a selector by field reads)."""
    old = tmp_path / f"{name}.yaml"
    old.write_text(OLD[name])
    pair = load_ablation(old), load_ablation(REPO / "config" / "ablations" / f"{name}.yaml")
    return tuple(replace(ab, presets="*") for ab in pair) if every_preset else pair


@pytest.mark.parametrize("name", ["history", "rate", "prompting"])
def test_shipped_files_plan_what_the_listed_conditions_planned(name: str, tmp_path: Path) -> None:
    old, new = _both(name, tmp_path)
    assert new.conditions == old.conditions
    assert (new.presets, new.corpora, new.games, new.seed) == (
        old.presets,
        old.corpora,
        old.games,
        old.seed,
    )
    if old.reference is not None:
        assert new.reference == old.reference


def test_paper_files_keep_their_conditions() -> None:
    paper = REPO / "config" / "ablations" / "paper"
    assert load_ablation(paper / "history.yaml").conditions == (
        "k0-hz0.33-base",
        "k3-hz0.33-base",
        "k5-hz0.33-base",
        "k10-hz0.33-base",
    )
    rate = load_ablation(paper / "rate.yaml")
    assert rate.conditions == ("k0-hz0.33-base", "k3-hz0.33-base", "k0-hz3-base", "k3-hz3-base")
    assert rate.reference == "k0-hz0.33-base"
    assert rate.subset("itch") == (None, 0)
    prompting = load_ablation(paper / "prompting.yaml")
    assert prompting.conditions == ("k3-hz0.33-base", "k3-hz0.33-strategy", "k3-hz0.33-fewshot")
    assert prompting.subset("itch") == (200, 0) and prompting.subset("pyweek") == (None, 0)


def test_paper_figures_give_identical_numbers(scores: pd.DataFrame, tmp_path: Path) -> None:
    for name in ("history", "rate", "prompting"):
        old, new = _both(name, tmp_path, every_preset=True)
        old_rows, _ = ablation_scores(scores, old, None)
        new_rows, _ = ablation_scores(scores, new, None)
        pd.testing.assert_frame_equal(old_rows, new_rows)
        if name == "history":
            pd.testing.assert_frame_equal(
                history_curves(old_rows, old, SPEC), history_curves(new_rows, new, SPEC)
            )
        elif name == "rate":
            for a, b in zip(
                action_rate(old_rows, old, SPEC), action_rate(new_rows, new, SPEC), strict=True
            ):
                pd.testing.assert_frame_equal(a, b)
        else:
            pd.testing.assert_frame_equal(
                prompting_effects(old_rows, old, SPEC), prompting_effects(new_rows, new, SPEC)
            )


def test_generic_statistic_gives_the_history_figure_numbers(
    scores: pd.DataFrame, tmp_path: Path
) -> None:
    _, ab = _both("history", tmp_path)
    rows, _ = ablation_scores(scores, ab, None)
    curves = history_curves(rows, ab, SPEC).set_index(["corpus", "condition", "model"])
    generic = axis_effects(rows, ab, SPEC).set_index(["corpus", "condition", "model"])
    assert len(generic) == len(curves) == 2 * 4 * 4
    joined = curves.merge(generic, left_index=True, right_index=True, suffixes=("", "_g"))
    for old, new in (("mean", "mean"), ("low", "mean low"), ("high", "mean high"), ("n", "mean n")):
        np.testing.assert_allclose(
            joined[old].astype(float), joined[new].astype(float), rtol=1e-12, atol=0
        )
    assert set(generic["value"]) == {"0", "3", "5", "10"}
    # the reference has no difference from itself; every other k has one
    assert np.isnan(generic.loc[("itch", "k0-hz0.33-base", ALL_MODELS), "delta"])
    assert generic.loc[("itch", "k3-hz0.33-base", ALL_MODELS), "delta n"] > 0


def test_generic_statistic_gives_the_prompting_figure_numbers(
    scores: pd.DataFrame, tmp_path: Path
) -> None:
    _, ab = _both("prompting", tmp_path, every_preset=True)
    rows, _ = ablation_scores(scores, ab, None)
    effects = prompting_effects(rows, ab, SPEC).set_index(["corpus", "condition", "model"])
    generic = axis_effects(rows, ab, SPEC).set_index(["corpus", "condition", "model"])
    joined = effects.merge(generic, left_index=True, right_index=True, suffixes=("", "_g"))
    assert len(joined) == len(effects) == 2 * 2 * 4
    pairs = [
        ("delta", "delta_g"),
        ("low", "delta low"),
        ("high", "delta high"),
        ("n", "delta n"),
        ("variant mean", "matched mean"),
        ("variant mean low", "matched mean low"),
        ("reference mean", "reference mean_g"),
        ("reference mean high", "reference mean high_g"),
    ]
    for old, new in pairs:
        np.testing.assert_allclose(
            joined[old].astype(float), joined[new].astype(float), rtol=1e-12, atol=0
        )


def _table(levels: dict[tuple[str, str, str], int | None]) -> pd.DataFrame:
    """A scores table from {(condition, preset, game): level or None for a failed run}."""
    rows = []
    for (cond, preset, game), level in levels.items():
        rows.append(
            {
                "corpus": "c",
                "preset": preset,
                "family": "VLM",
                "condition": cond,
                "game": game,
                "genre": "g",
                "judge": "j",
                "level": np.nan if level is None else float(level),
                "status": "ok" if level is not None else "failed",
            }
        )
    return pd.DataFrame(rows)


def _temperature(tmp_path: Path) -> object:
    path = tmp_path / "temperature.yaml"
    path.write_text(
        "axis: sampling.temperature\nvalues: [null, 0.7]\nreference: null\nbase: k0-hz0.33-base\n"
    )
    return load_ablation(path)


def test_generic_statistic_by_hand(tmp_path: Path) -> None:
    """Known answers: two models, three games, one failed run that leaves its pair out of the
    differences but not the other value's own mean."""
    ab = _temperature(tmp_path)
    hot = "k0-hz0.33-base+sampling.temperature=0.7"
    assert ab.conditions == ("k0-hz0.33-base", hot)
    levels = {
        ("k0-hz0.33-base", "a", "g1"): 1,
        ("k0-hz0.33-base", "a", "g2"): 2,
        ("k0-hz0.33-base", "a", "g3"): None,
        ("k0-hz0.33-base", "b", "g1"): 0,
        ("k0-hz0.33-base", "b", "g2"): 3,
        ("k0-hz0.33-base", "b", "g3"): 4,
        (hot, "a", "g1"): 3,
        (hot, "a", "g2"): 2,
        (hot, "a", "g3"): 4,
        (hot, "b", "g1"): 1,
        (hot, "b", "g2"): 1,
        (hot, "b", "g3"): 4,
    }
    rows, missing = ablation_scores(_table(levels), ab, None)
    assert missing == []
    out = axis_effects(rows, ab, BootstrapSpec(resamples=200, seed=0))
    out = out.set_index(["value", "model"])
    assert out.loc[("0.7", "a"), "mean"] == pytest.approx(3.0)
    assert out.loc[("0.7", "a"), "partial"] == pytest.approx(100.0)
    assert out.loc[("default", "a"), "mean"] == pytest.approx(1.5)  # g3 failed
    assert out.loc[("default", "a"), "mean n"] == 2
    assert out.loc[("default", "a"), "partial"] == pytest.approx(50.0)
    # a: pairs g1 (+2), g2 (0); g3 unmatched
    assert out.loc[("0.7", "a"), "delta"] == pytest.approx(1.0)
    assert out.loc[("0.7", "a"), "delta n"] == 2
    assert out.loc[("0.7", "a"), "matched mean"] == pytest.approx(2.5)
    assert out.loc[("0.7", "a"), "reference mean"] == pytest.approx(1.5)
    assert out.loc[("0.7", "a"), "delta partial"] == pytest.approx(50.0)  # g1 0->1, g2 1->1
    # b: +1, -2, 0
    assert out.loc[("0.7", "b"), "delta"] == pytest.approx(-1 / 3)
    # pooled over the five matched pairs: (2 + 0 + 1 - 2 + 0) / 5
    assert out.loc[("0.7", ALL_MODELS), "delta"] == pytest.approx(0.2)
    assert out.loc[("0.7", ALL_MODELS), "delta n"] == 5
    low, high = out.loc[("0.7", ALL_MODELS), ["delta low", "delta high"]]
    assert low <= 0.2 <= high and low < high
    assert np.isnan(out.loc[("default", ALL_MODELS), "delta"])
    assert set(out["reference"]) == {"k0-hz0.33-base"}
    assert set(out["axis"]) == {"sampling.temperature"}


def test_crossed_values_compare_at_the_same_crossed_value(scores: pd.DataFrame) -> None:
    ab = load_ablation(REPO / "config" / "ablations" / "rate.yaml")
    arms = ablation_arms(ab)
    assert arms.reference == {
        "k0-hz0.33-base": "k0-hz0.33-base",
        "k3-hz0.33-base": "k3-hz0.33-base",
        "k0-hz3-base": "k0-hz0.33-base",
        "k3-hz3-base": "k3-hz0.33-base",
    }
    rows, _ = ablation_scores(scores, ab, None)
    out = axis_effects(rows, ab, SPEC)
    pooled = out[(out["model"] == ALL_MODELS) & (out["corpus"] == "itch")].set_index("condition")
    assert pooled.loc["k3-hz3-base", ["value", "cross"]].tolist() == ["3", "3"]
    # the planted +0.4 of k3 at 3 Hz against +0.2 of k3 at 0.33 Hz shows in the paired delta
    assert pooled.loc["k3-hz3-base", "delta"] > pooled.loc["k0-hz3-base", "delta"]
    assert np.isnan(pooled.loc["k3-hz0.33-base", "delta"])


def test_judge_ablation_pairs_the_same_episodes(tmp_path: Path) -> None:
    path = tmp_path / "judges.yaml"
    path.write_text("axis: judge\nvalues: [frame, strict]\nbase: k0-hz0.33-base\n")
    ab = load_ablation(path)
    assert ab.over_judges and ab.conditions == ("k0-hz0.33-base",)
    games = [f"g{i}" for i in range(6)]
    frame = _table({("k0-hz0.33-base", p, g): 2 for p in ("a", "b") for g in games})
    strict = frame.assign(level=frame["level"] - 1.0)
    strict.loc[0, ["status", "level"]] = ["failed", np.nan]  # one judgement failed
    other = frame.assign(condition="k3-hz0.33-base")  # another condition: not judged here
    rows, missing = judge_ablation_scores(
        {"frame": pd.concat([frame, other]), "strict": strict}, ab, None
    )
    assert missing == []
    assert set(rows["condition"]) == {"frame", "strict"}
    out = axis_effects(rows, ab, SPEC).set_index(["value", "model"])
    assert out.loc[("strict", ALL_MODELS), "delta"] == pytest.approx(-1.0)
    assert out.loc[("strict", ALL_MODELS), "delta n"] == 11
    assert out.loc[("frame", ALL_MODELS), "mean n"] == 12


def test_generic_figure_draws_crossed_and_empty_tables(scores: pd.DataFrame, tmp_path) -> None:
    from playsuite.analysis.figures import axis_figure, save_figure

    ab = load_ablation(REPO / "config" / "ablations" / "rate.yaml")
    rows, _ = ablation_scores(scores, ab, None)
    table = axis_effects(rows, ab, SPEC)
    fig = axis_figure(table, "Action rate")
    top, bottom = fig.axes[0], fig.axes[2]  # (row, corpus): itch's two panels
    assert [t.get_text() for t in bottom.get_xticklabels()] == ["0.33", "3"]
    assert {t.get_text() for t in top.get_legend().get_texts()} >= {
        "mean (95 % CI) (0)",
        "mean (95 % CI) (3)",
    }
    save_figure(fig, tmp_path / "a.pdf", tmp_path / "a.png")
    assert (tmp_path / "a.png").stat().st_size > 0
    empty = axis_figure(axis_effects(rows.iloc[:0], ab, SPEC), "none")
    assert "no games" in empty.axes[0].texts[0].get_text()
