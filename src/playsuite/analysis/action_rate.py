"""Action rate (paper Figure 13): does history help more at 3 Hz than at 0.33 Hz?

For each rate the history gap is mean(k>0) - mean(k=0) over matched game-model cells (both
conditions valid). The change in the gap between a rate and the reference rate is a difference of
differences over cells valid in all four conditions, with a game-level bootstrap interval.
Per-model gaps at the two rates are correlated across models (Pearson r), with an interval from
the same resamples.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from playsuite.analysis.ablations import Ablation
from playsuite.analysis.bootstrap import (
    BootstrapSpec,
    cells,
    percentile_bounds,
    pooled,
    ratio_bootstrap,
    stack,
)
from playsuite.analysis.scores import corpus_games, level_matrix, ordered_presets
from playsuite.config import Condition


def _rate_conditions(ab: Ablation) -> tuple[list[float], dict[tuple[float, bool], str]]:
    parsed = {c: Condition.parse(c) for c in ab.conditions}
    ref_hz = parsed[ab.reference].hz if ab.reference else parsed[ab.conditions[0]].hz
    rates = sorted({c.hz for c in parsed.values()}, key=lambda hz: (hz != ref_hz, hz))
    by = {(c.hz, c.history_k > 0): name for name, c in parsed.items()}
    return rates, by


def _rowwise_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson r between matching rows of two resamples x models matrices (NaN-safe per row)."""
    ok = ~np.isnan(a) & ~np.isnan(b)
    n = ok.sum(axis=1)
    a0 = np.where(ok, a, 0.0)
    b0 = np.where(ok, b, 0.0)
    with np.errstate(all="ignore"):
        ma = a0.sum(axis=1) / n
        mb = b0.sum(axis=1) / n
        da = np.where(ok, a - ma[:, None], 0.0)
        db = np.where(ok, b - mb[:, None], 0.0)
        r = (da * db).sum(axis=1) / np.sqrt((da**2).sum(axis=1) * (db**2).sum(axis=1))
    r[n < 3] = np.nan
    return r


def action_rate(
    df: pd.DataFrame, ab: Ablation, spec: BootstrapSpec
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary, per_model).

    summary rows per corpus and rate: mean without / with history, ``overall`` (every valid
    evaluation of the rate, both history conditions pooled: the paper's main-text number), the
    gap, and (for rates other than the reference) the change in gap and the Pearson r of
    per-model gaps, each with CIs.
    per_model rows: corpus, model, hz, gap.
    """
    rates, by = _rate_conditions(ab)
    run = set(df["condition"])
    ref = rates[0]
    rates = [hz for hz in rates if by[(hz, False)] in run and by[(hz, True)] in run]
    if ref not in rates:
        return pd.DataFrame(), pd.DataFrame()
    by = {key: cond for key, cond in by.items() if key[0] in rates}
    presets = ordered_presets(df)
    summary, per_model = [], []
    for corpus in sorted(df["corpus"].unique()):
        games = corpus_games(df, corpus)
        x = {key: level_matrix(df, corpus, cond, presets, games) for key, cond in by.items()}
        pairs, keys = [], []
        for hz in rates:
            lo, hi = x[(hz, False)], x[(hz, True)]
            gap = np.where(~np.isnan(lo) & ~np.isnan(hi), hi - lo, np.nan)
            both = np.hstack([lo, hi])  # every valid evaluation of the rate, either history
            pairs += [pooled(lo), pooled(hi), pooled(both), pooled(gap), cells(gap)]
            keys += [("without", hz), ("with", hz), ("overall", hz), ("gap", hz)]
            keys += [("model", hz)] * len(presets)
            if hz != ref:
                base = hi - lo
                ref_gap = x[(ref, True)] - x[(ref, False)]
                dd = base - ref_gap  # NaN unless all four cells are valid
                pairs.append(pooled(dd))
                keys.append(("change", hz))
        num, den = stack(*pairs)
        est = ratio_bootstrap(num, den, spec)
        col = {}
        model_cols: dict[float, list[int]] = {}
        for i, key in enumerate(keys):
            if key[0] == "model":
                model_cols.setdefault(key[1], []).append(i)
            else:
                col[key] = i
        for hz in rates:
            row = {"corpus": corpus, "hz": hz, "reference": hz == ref}
            for stat in ("without", "with", "overall", "gap", "change"):
                if (stat, hz) in col:
                    i = col[(stat, hz)]
                    row[stat] = est.point[i]
                    row[f"{stat} low"] = est.low[i]
                    row[f"{stat} high"] = est.high[i]
                    row[f"{stat} n"] = int(den[:, i].sum())
            if hz != ref:
                a = est.replicates[:, model_cols[ref]]
                b = est.replicates[:, model_cols[hz]]
                pa, pb = est.point[model_cols[ref]], est.point[model_cols[hz]]
                r_point = _rowwise_pearson(pa[None, :], pb[None, :])[0]
                low, high = percentile_bounds(_rowwise_pearson(a, b)[:, None], spec.confidence)
                row.update(
                    {
                        "pearson r": r_point,
                        "pearson r low": low[0],
                        "pearson r high": high[0],
                        "models": len(presets),
                    }
                )
            summary.append(row)
            for p, i in zip(presets, model_cols[hz], strict=True):
                per_model.append({"corpus": corpus, "model": p, "hz": hz, "gap": est.point[i]})
    return pd.DataFrame(summary), pd.DataFrame(per_model)
