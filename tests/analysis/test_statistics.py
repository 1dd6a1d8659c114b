"""Every statistic against an independent computation on synthetic data with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from playsuite.analysis.ablations import Ablation, ablation_scores, select_games
from playsuite.analysis.action_rate import action_rate
from playsuite.analysis.bootstrap import (
    BootstrapSpec,
    mean_bootstrap,
    pooled,
    ratio_bootstrap,
    resample_counts,
)
from playsuite.analysis.genres import agreement_range, genre_rank_agreement, genre_table
from playsuite.analysis.history import ALL_MODELS, history_curves
from playsuite.analysis.main_results import main_results
from playsuite.analysis.prompting import prompting_effects
from playsuite.analysis.scores import valid
from playsuite.analysis.stability import stability, subset_metrics
from playsuite.testing.synthetic_scores import SyntheticSpec, paper_presets, synthetic_scores

K0, K3 = "k0-hz0.33-base", "k3-hz0.33-base"
SPEC = BootstrapSpec(resamples=2000, seed=1)


def _ablation(kind: str, conditions: list[str], reference: str | None = None) -> Ablation:
    return Ablation(kind, kind, kind, tuple(conditions), reference, "*", "*", None, 0)


# --- bootstrap -----------------------------------------------------------------------------


def test_resample_counts_are_seeded_draws_of_all_games() -> None:
    spec = BootstrapSpec(resamples=1200, seed=7)
    a = np.vstack(list(resample_counts(50, spec)))
    b = np.vstack(list(resample_counts(50, spec)))
    assert a.shape == (1200, 50)
    assert (a.sum(axis=1) == 50).all()
    assert np.array_equal(a, b)
    assert abs(a.mean() - 1.0) < 0.01  # each game drawn once per resample on average


def test_mean_interval_matches_scipy_percentile_bootstrap() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, size=300).astype(float)
    est = mean_bootstrap(x[:, None], BootstrapSpec(resamples=10_000, seed=0))
    ref = stats.bootstrap(
        (x,), np.mean, n_resamples=10_000, method="percentile", random_state=1
    ).confidence_interval
    assert est.point[0] == pytest.approx(x.mean())
    assert est.low[0] == pytest.approx(ref.low, abs=0.02)
    assert est.high[0] == pytest.approx(ref.high, abs=0.02)


def test_interval_resamples_games_not_episodes() -> None:
    """Models share a game effect: the CI must match a bootstrap of per-game means, and be
    wider than the (wrong) one that treats every episode as independent."""
    rng = np.random.default_rng(5)
    game = rng.normal(2.0, 1.0, size=200)
    x = game[:, None] + rng.normal(0, 0.2, size=(200, 8))
    est = ratio_bootstrap(*pooled(x), BootstrapSpec(resamples=10_000, seed=2))
    per_game = stats.bootstrap(
        (x.mean(axis=1),), np.mean, n_resamples=10_000, method="percentile", random_state=0
    ).confidence_interval
    episodes = stats.bootstrap(
        (x.ravel(),), np.mean, n_resamples=2000, method="percentile", random_state=0
    ).confidence_interval
    assert est.low[0] == pytest.approx(per_game.low, abs=0.015)
    assert est.high[0] == pytest.approx(per_game.high, abs=0.015)
    assert (est.high[0] - est.low[0]) > 2 * (episodes.high - episodes.low)


def test_interval_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(11)
    p = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    truth = float((np.arange(5) * p).sum())
    hits = 0
    trials = 300
    for t in range(trials):
        x = rng.choice(5, size=120, p=p).astype(float)
        est = mean_bootstrap(x[:, None], BootstrapSpec(resamples=600, seed=t))
        hits += est.low[0] <= truth <= est.high[0]
    assert 0.90 <= hits / trials <= 0.99


def test_missing_cells_are_left_out_of_means() -> None:
    x = np.array([[1.0, np.nan], [3.0, 2.0], [np.nan, 4.0]])
    est = mean_bootstrap(x, SPEC)
    assert est.point.tolist() == [2.0, 3.0]


# --- Table 2 -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scores() -> pd.DataFrame:
    spec = SyntheticSpec(
        presets=paper_presets(6),
        corpora={"itch": 400, "pyweek": 150},
        condition_effects={K3: 0.3},
        genre_effects={"Puzzle": 1.5},
        failure_rate=0.05,
        seed=2,
    )
    return synthetic_scores(spec)


def test_main_results_equal_pandas_means_over_valid_rows(scores: pd.DataFrame) -> None:
    table = main_results(scores, K3, K0, SPEC).set_index("preset")
    ok = valid(scores)
    for (corpus, preset, cond), g in ok.groupby(["corpus", "preset", "condition"]):
        label = "k=3" if cond == K3 else "k=0"
        assert table.at[preset, f"{corpus} {label}"] == pytest.approx(g["level"].mean())
        assert table.at[preset, f"{corpus} {label} n"] == len(g)
        assert table.at[preset, f"{corpus} {label} low"] < g["level"].mean()
        if cond == K0:
            share = 100 * (g["level"] >= 2).mean()
            assert table.at[preset, f"{corpus} Partial+ k=0 (%)"] == pytest.approx(share)
    # crashed rows exist and were excluded (n < number of games)
    assert (scores["status"] != "ok").sum() > 0
    assert table[["itch k=0 n"]].max().item() < 400
    # planted skills: the table ranks presets by their skill
    assert list(table["itch k=0"].sort_values(ascending=False).index) == list(paper_presets(6))


# --- genres ---------------------------------------------------------------------------------


def test_genre_table_finds_the_planted_easy_genre(scores: pd.DataFrame) -> None:
    table = genre_table(scores, K3, K0, min_games=30, spec=SPEC)
    itch = table[table["corpus"] == "itch"].set_index("genre")
    counts = scores[scores["corpus"] == "itch"].drop_duplicates("game")["genre"].value_counts()
    assert set(itch.index) == set(counts[counts >= 30].index)
    assert (itch["N"] == counts[itch.index]).all()
    others = itch.drop(index="Puzzle")
    assert itch.at["Puzzle", "k=0 mean low"] > others["k=0 mean high"].max()
    # pooled mean of a genre equals the plain mean of its valid episodes
    ok = valid(scores)
    puzzle = ok[(ok["corpus"] == "itch") & (ok["genre"] == "Puzzle") & (ok["condition"] == K3)]
    assert itch.at["Puzzle", "k=3 mean"] == pytest.approx(puzzle["level"].mean())
    share = 100 * (puzzle["level"] >= 2).mean()
    assert itch.at["Puzzle", "k=3 Partial+ (%)"] == pytest.approx(share)


def test_genre_threshold_drops_small_genres(scores: pd.DataFrame) -> None:
    assert genre_table(scores, K3, K0, min_games=10_000, spec=SPEC).empty


def test_genre_rank_agreement_matches_scipy(scores: pd.DataFrame) -> None:
    table = genre_rank_agreement(scores, K0, min_games=30)
    ok = valid(scores)
    ok = ok[(ok["corpus"] == "itch") & (ok["condition"] == K0)]
    overall = ok.groupby("preset")["level"].mean()
    for _, row in table[table["corpus"] == "itch"].iterrows():
        g = ok[ok["genre"] == row["genre"]].groupby("preset")["level"].mean()
        expected = stats.spearmanr(g, overall[g.index]).statistic
        assert row["spearman"] == pytest.approx(expected)
    rng = agreement_range(table).set_index("corpus")
    assert rng.at["itch", "spearman min"] == pytest.approx(
        table[table.corpus == "itch"].spearman.min()
    )
    # skills are spread well apart: every genre ranks the models much like the whole corpus
    assert rng.at["itch", "spearman min"] > 0.6


# --- history, action rate, prompting --------------------------------------------------------


def test_history_curves_recover_planted_gains() -> None:
    conds = ["k0-hz0.33-base", "k3-hz0.33-base", "k5-hz0.33-base", "k10-hz0.33-base"]
    effects = {conds[1]: 0.3, conds[2]: 0.6, conds[3]: 0.9}
    df = synthetic_scores(
        SyntheticSpec(
            presets=paper_presets(4),
            conditions=conds,
            condition_effects=effects,
            corpora={"itch": 300},
            seed=4,
        )
    )
    ab = _ablation("history", conds)
    sub, missing = ablation_scores(df, ab, None)
    assert missing == []
    curves = history_curves(sub, ab, SPEC)
    mean = curves[curves["model"] == ALL_MODELS].set_index("history_k")
    assert list(mean.index) == [0, 3, 5, 10]
    assert mean["mean"].is_monotonic_increasing
    assert mean.at[10, "low"] > mean.at[0, "high"]
    ok = valid(sub)
    for k, cond in zip([0, 3, 5, 10], conds, strict=True):
        assert mean.at[k, "mean"] == pytest.approx(ok[ok["condition"] == cond]["level"].mean())
    per_model = curves[curves["model"] != ALL_MODELS]
    assert len(per_model) == 4 * 4


def test_ablation_uses_only_games_played_under_every_condition() -> None:
    conds = ["k0-hz0.33-base", "k3-hz0.33-base", "k5-hz0.33-base"]
    df = synthetic_scores(
        SyntheticSpec(presets=paper_presets(3), conditions=conds, corpora={"itch": 100}, seed=9)
    )
    subset = set(select_games(df["game"].unique(), 30, seed=1))
    df = df[(df["condition"] != conds[2]) | df["game"].isin(subset)]  # k5 ran on 30 games
    sub, missing = ablation_scores(df, _ablation("history", [*conds, "k10-hz0.33-base"]), None)
    assert set(sub["game"]) == subset
    assert missing == ["k10-hz0.33-base"]


def test_select_games_is_seeded_and_order_independent() -> None:
    ids = [f"g{i}" for i in range(500)]
    a = select_games(ids, 200, seed=0)
    assert a == select_games(list(reversed(ids)), 200, seed=0)
    assert a != select_games(ids, 200, seed=1)
    assert len(set(a)) == 200 and select_games(ids[:50], 200, 0) == sorted(ids[:50])


RATE_CONDS = ["k0-hz0.33-base", "k3-hz0.33-base", "k0-hz3-base", "k3-hz3-base"]


def _rate_scores(seed: int = 6) -> pd.DataFrame:
    presets = paper_presets(6)
    # history helps only at 3 Hz, more for some models than others
    gain = {p: 0.2 + 0.15 * i for i, p in enumerate(presets)}
    return synthetic_scores(
        SyntheticSpec(
            presets=presets,
            conditions=RATE_CONDS,
            corpora={"itch": 400},
            condition_effects={"k3-hz3-base": gain},
            seed=seed,
            noise_sd=0.5,
        )
    )


def test_action_rate_difference_of_differences_matches_direct_computation() -> None:
    df = _rate_scores()
    ab = _ablation("rate", RATE_CONDS, reference="k0-hz0.33-base")
    summary, _per_model = action_rate(df, ab, SPEC)
    row = summary[summary["hz"] == 3].iloc[0]
    wide = valid(df).pivot_table(index=["game", "preset"], columns="condition", values="level")
    wide = wide.dropna()  # matched cells: all four conditions valid
    dd = (wide["k3-hz3-base"] - wide["k0-hz3-base"]) - (
        wide["k3-hz0.33-base"] - wide["k0-hz0.33-base"]
    )
    assert row["change"] == pytest.approx(dd.mean())
    assert row["change n"] == len(dd)
    assert row["change low"] > 0  # planted: history helps more at 3 Hz
    ref = summary[summary["reference"]].iloc[0]
    assert ref["gap low"] < 0 < ref["gap high"]  # planted: no history effect at 0.33 Hz
    # overall: every valid evaluation at the rate, with and without history pooled
    at3 = valid(df)[valid(df)["condition"].isin(["k0-hz3-base", "k3-hz3-base"])]
    assert row["overall"] == pytest.approx(at3["level"].mean())
    assert row["overall low"] < row["overall"] < row["overall high"]


def test_action_rate_pearson_r_matches_numpy() -> None:
    df = _rate_scores()
    ab = _ablation("rate", RATE_CONDS, reference="k0-hz0.33-base")
    summary, per_model = action_rate(df, ab, SPEC)
    ok = valid(df)
    gaps = {}
    for hz, (lo, hi) in {0.33: RATE_CONDS[:2], 3.0: RATE_CONDS[2:]}.items():
        w = (
            ok[ok["condition"].isin([lo, hi])]
            .pivot_table(index=["preset", "game"], columns="condition", values="level")
            .dropna()
        )
        gaps[hz] = (w[hi] - w[lo]).groupby("preset").mean()
    expected = np.corrcoef(gaps[0.33], gaps[3.0][gaps[0.33].index])[0, 1]
    row = summary[summary["hz"] == 3].iloc[0]
    assert row["pearson r"] == pytest.approx(expected)
    assert row["pearson r low"] <= row["pearson r"] <= row["pearson r high"]
    pm = per_model.pivot(index="model", columns="hz", values="gap")
    assert pm[3.0].to_numpy() == pytest.approx(gaps[3.0][pm.index].to_numpy())


def test_prompting_effects_find_the_planted_variant() -> None:
    presets = paper_presets(4)
    conds = ["k3-hz0.33-base", "k3-hz0.33-strategy", "k3-hz0.33-fewshot"]
    first = next(iter(presets))
    df = synthetic_scores(
        SyntheticSpec(
            presets=presets,
            conditions=conds,
            corpora={"itch": 300},
            seed=8,
            condition_effects={"k3-hz0.33-strategy": {first: 1.0}},
        )
    )
    eff = prompting_effects(df, _ablation("prompting", conds, conds[0]), SPEC)
    eff = eff.set_index(["variant", "model"])
    assert eff.at[("strategy", first), "low"] > 0.3
    for p in list(presets)[1:]:
        assert eff.at[("fewshot", p), "low"] < 0 < eff.at[("fewshot", p), "high"]
    ok = valid(df)
    w = ok[ok["preset"] == first].pivot(index="game", columns="condition", values="level")
    d = (w["k3-hz0.33-strategy"] - w["k3-hz0.33-base"]).dropna()
    assert eff.at[("strategy", first), "delta"] == pytest.approx(d.mean())
    assert eff.at[("strategy", first), "n"] == len(d)


# --- stability ------------------------------------------------------------------------------


def test_planted_ranking_is_recovered_at_2000_games() -> None:
    df = synthetic_scores(
        SyntheticSpec(presets=paper_presets(8), corpora={"itch": 3000}, conditions=[K0], seed=3)
    )
    table = stability(df, K0, [50, 2000], subsets=200, top=3, seed=0).set_index("n")
    assert table.at[2000, "spearman median"] > 0.99
    assert table.at[2000, "top1 share"] > 0.95
    assert table.at[2000, "topk share"] > 0.95
    assert table.at[50, "spearman median"] < table.at[2000, "spearman median"]
    assert table.at[50, "top1 share"] < table.at[2000, "top1 share"]


def test_no_planted_ranking_gives_no_agreement() -> None:
    presets = {f"m{i}": ("VLM", 0.0) for i in range(8)}
    df = synthetic_scores(SyntheticSpec(presets=presets, corpora={"itch": 600}, conditions=[K0]))
    table = stability(df, K0, [50], subsets=400, top=3, seed=0)
    assert abs(table["spearman median"].iloc[0]) < 0.35
    assert table["top1 share"].iloc[0] < 0.6


def test_subset_metrics_match_a_loop_over_the_same_subsets() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, size=(120, 5)).astype(float)
    x[rng.random(x.shape) < 0.05] = np.nan
    m = subset_metrics(x, 30, 40, 2, np.random.default_rng(42))
    replay = np.random.default_rng(42)
    keys = replay.random((40, 120))
    full = np.nanmean(x, axis=0)
    for i in range(40):
        idx = np.argpartition(keys[i], 29)[:30]
        sub = np.nanmean(x[idx], axis=0)
        assert m["spearman"][i] == pytest.approx(stats.spearmanr(sub, full).statistic)
        assert m["top1"][i] == (np.argmax(sub) == np.argmax(full))
        assert m["topk"][i] == (set(np.argsort(-sub)[:2]) == set(np.argsort(-full)[:2]))


def test_sizes_not_smaller_than_the_corpus_are_skipped() -> None:
    df = synthetic_scores(
        SyntheticSpec(presets=paper_presets(4), corpora={"tiny": 10}, conditions=[K0])
    )
    table = stability(df, K0, [5, 10, 50], subsets=50, top=3, seed=0)
    assert table["n"].tolist() == [5]
