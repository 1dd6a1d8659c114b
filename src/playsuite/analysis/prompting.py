"""Prompting (paper Figure 14): prompt variants against the standard prompt, matched cells.

For each model of the ablation and each variant condition, the mean of (variant - reference)
over games where both episodes are valid, with a game-level bootstrap interval; plus the same
pooled over all models. The two means on those matched cells (the paper quotes them, e.g.
0.785 -> 0.747) come along with their own intervals from the same resamples.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from playsuite.analysis.ablations import Ablation
from playsuite.analysis.bootstrap import BootstrapSpec, cells, pooled, ratio_bootstrap, stack
from playsuite.analysis.history import ALL_MODELS
from playsuite.analysis.scores import corpus_games, level_matrix, ordered_presets
from playsuite.config import Condition


def prompting_effects(df: pd.DataFrame, ab: Ablation, spec: BootstrapSpec) -> pd.DataFrame:
    """Rows: corpus, variant, condition, model (or ``all models``), delta, low, high, n, and
    ``variant mean`` / ``reference mean`` on the matched cells, each with ``low``/``high``."""
    assert ab.reference is not None
    presets = ordered_presets(df)
    rows: list[dict] = []
    run = set(df["condition"])
    if ab.reference not in run:
        return pd.DataFrame(rows)
    for corpus in sorted(df["corpus"].unique()):
        games = corpus_games(df, corpus)
        base = level_matrix(df, corpus, ab.reference, presets, games)
        pairs, keys = [], []
        for cond in ab.conditions:
            if cond == ab.reference or cond not in run:
                continue
            x = level_matrix(df, corpus, cond, presets, games)
            matched = ~np.isnan(x) & ~np.isnan(base)
            blocks = {
                "delta": np.where(matched, x - base, np.nan),
                "variant mean": np.where(matched, x, np.nan),
                "reference mean": np.where(matched, base, np.nan),
            }
            for stat, values in blocks.items():
                pairs += [cells(values), pooled(values)]
                keys += [(cond, p, stat) for p in presets] + [(cond, ALL_MODELS, stat)]
        if not pairs:
            continue
        num, den = stack(*pairs)
        est = ratio_bootstrap(num, den, spec)
        by: dict[tuple[str, str], dict] = {}
        for i, (cond, model, stat) in enumerate(keys):
            row = by.setdefault(
                (cond, model),
                {
                    "corpus": corpus,
                    "variant": Condition.parse(cond).variant,
                    "condition": cond,
                    "reference": ab.reference,
                    "model": model,
                },
            )
            if stat == "delta":
                row.update(
                    delta=est.point[i], low=est.low[i], high=est.high[i], n=int(den[:, i].sum())
                )
            else:
                row.update(
                    {stat: est.point[i], f"{stat} low": est.low[i], f"{stat} high": est.high[i]}
                )
        rows += list(by.values())
    return pd.DataFrame(rows)
