"""Prompting (paper Figure 14): prompt variants against the standard prompt, matched cells.

For each model of the ablation and each variant condition, the mean of (variant - reference)
over games where both episodes are valid, with a game-level bootstrap interval; plus the same
pooled over all models.
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
    """Rows: corpus, variant, condition, model (or ``all models``), delta, low, high, n."""
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
            diff = np.where(~np.isnan(x) & ~np.isnan(base), x - base, np.nan)
            pairs += [cells(diff), pooled(diff)]
            keys += [(cond, p) for p in presets] + [(cond, ALL_MODELS)]
        if not pairs:
            continue
        num, den = stack(*pairs)
        est = ratio_bootstrap(num, den, spec)
        for i, (cond, model) in enumerate(keys):
            rows.append(
                {
                    "corpus": corpus,
                    "variant": Condition.parse(cond).variant,
                    "condition": cond,
                    "reference": ab.reference,
                    "model": model,
                    "delta": est.point[i],
                    "low": est.low[i],
                    "high": est.high[i],
                    "n": int(den[:, i].sum()),
                }
            )
    return pd.DataFrame(rows)
