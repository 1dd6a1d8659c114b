"""Main results (paper Table 2): per preset, mean progress with and without history, Partial+.

One row per preset, grouped by family; per corpus three statistics, each with a game-level 95 %
bootstrap interval: mean level with history (k=3), without (k=0), and the Partial+ share without
history. All columns of a corpus share one set of resamples. When the episodes' records are at
hand (``counts``, playsuite.analysis.agent_settings.episode_counts), each corpus also gets the
invalid-answer rate of both conditions: invalid steps over steps of the valid episodes, pooled.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from playsuite.analysis.agent_settings import invalid_rate
from playsuite.analysis.bootstrap import BootstrapSpec, cells, ratio_bootstrap, stack
from playsuite.analysis.scores import corpus_games, level_matrix, ordered_presets, partial_plus
from playsuite.config import Condition


def stat_labels(with_history: str, without_history: str) -> dict[str, str]:
    """Column stems for the three statistics, e.g. {"with": "k=3", ...}."""
    kw = Condition.parse(with_history).history_k
    ko = Condition.parse(without_history).history_k
    return {"with": f"k={kw}", "without": f"k={ko}", "partial": f"Partial+ k={ko} (%)"}


def invalid_label(condition: str) -> str:
    """Column stem of a condition's invalid-answer rate, e.g. ``invalid k=3 (%)``."""
    return f"invalid k={Condition.parse(condition).history_k} (%)"


def main_results(
    df: pd.DataFrame,
    with_history: str,
    without_history: str,
    spec: BootstrapSpec,
    counts: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Wide table: ``family``, ``preset`` and per corpus and statistic: mean, low, high, n; with
    ``counts`` (steps and invalid steps per episode) the invalid rate (%) per condition too."""
    presets = ordered_presets(df)
    fam = df.drop_duplicates("preset").set_index("preset")["family"]
    out = pd.DataFrame({"family": [fam[p] for p in presets], "preset": presets})
    labels = stat_labels(with_history, without_history)
    for corpus in sorted(df["corpus"].unique()):
        games = corpus_games(df, corpus)
        xw = level_matrix(df, corpus, with_history, presets, games)
        xo = level_matrix(df, corpus, without_history, presets, games)
        blocks = {"with": xw, "without": xo, "partial": 100.0 * partial_plus(xo)}
        num, den = stack(*(cells(b) for b in blocks.values()))
        est = ratio_bootstrap(num, den, spec)
        p = len(presets)
        for i, key in enumerate(blocks):
            cols = slice(i * p, (i + 1) * p)
            stem = f"{corpus} {labels[key]}"
            out[stem] = est.point[cols]
            out[f"{stem} low"] = est.low[cols]
            out[f"{stem} high"] = est.high[cols]
            out[f"{stem} n"] = den[:, cols].sum(axis=0).astype(int)
        if counts is not None and not counts.empty:
            rates = invalid_rate(counts)
            for cond in dict.fromkeys((with_history, without_history)):
                out[f"{corpus} {invalid_label(cond)}"] = [
                    rates.get((corpus, p, cond), np.nan) for p in presets
                ]
    return out


def rate_columns(table: pd.DataFrame) -> list[str]:
    """The invalid-rate columns (lower is better, so never marked best)."""
    return [c for c in table.columns if " invalid k=" in c]


def display_columns(table: pd.DataFrame) -> list[str]:
    """The columns shown in the Markdown/LaTeX versions (means only; CSV keeps the CIs)."""
    return [c for c in table.columns if not c.endswith((" low", " high", " n"))]


def drop_empty_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Presets with no valid evaluation anywhere are dropped (e.g. only crashed runs)."""
    stats = [
        c for c in display_columns(table) if c not in ("family", "preset", *rate_columns(table))
    ]
    keep = table[stats].notna().any(axis=1) if stats else np.ones(len(table), bool)
    return table[keep].reset_index(drop=True)
