"""History length (paper Figure 15): mean progress against the number of past frames k.

Per corpus, each model's mean at every k (drawn faint) and the mean over all valid evaluations
of the ablation's models (bold) with a game-level bootstrap interval.
"""

from __future__ import annotations

import pandas as pd

from playsuite.analysis.ablations import Ablation
from playsuite.analysis.bootstrap import BootstrapSpec, cells, pooled, ratio_bootstrap, stack
from playsuite.analysis.scores import corpus_games, level_matrix, ordered_presets
from playsuite.config import Condition

ALL_MODELS = "all models"


def history_curves(df: pd.DataFrame, ab: Ablation, spec: BootstrapSpec) -> pd.DataFrame:
    """Long table: corpus, history_k, condition, model (or ``all models``), mean, low, high, n.

    ``df`` holds the ablation's rows only (:func:`ablation_scores`).
    """
    run = set(df["condition"])
    conds = sorted(
        (c for c in ab.conditions if c in run), key=lambda c: Condition.parse(c).history_k
    )
    presets = ordered_presets(df)
    rows = []
    for corpus in sorted(df["corpus"].unique()):
        games = corpus_games(df, corpus)
        pairs, keys = [], []
        for cond in conds:
            x = level_matrix(df, corpus, cond, presets, games)
            pairs += [cells(x), pooled(x)]
            keys += [(cond, p) for p in presets] + [(cond, ALL_MODELS)]
        num, den = stack(*pairs)
        est = ratio_bootstrap(num, den, spec)
        for i, (cond, model) in enumerate(keys):
            rows.append(
                {
                    "corpus": corpus,
                    "history_k": Condition.parse(cond).history_k,
                    "condition": cond,
                    "model": model,
                    "mean": est.point[i],
                    "low": est.low[i],
                    "high": est.high[i],
                    "n": int(den[:, i].sum()),
                    "games": len(games),
                }
            )
    return pd.DataFrame(rows)
