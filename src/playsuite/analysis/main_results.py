"""Main results (paper Table 2): per preset, mean progress with and without history, Partial+.

One row per preset, grouped by family; per corpus three statistics, each with a game-level 95 %
bootstrap interval: mean level with history (k=3), without (k=0), and the Partial+ share without
history. All columns of a corpus share one set of resamples.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from playsuite.analysis.bootstrap import BootstrapSpec, cells, ratio_bootstrap, stack
from playsuite.analysis.scores import corpus_games, level_matrix, ordered_presets, partial_plus
from playsuite.config import Condition


def stat_labels(with_history: str, without_history: str) -> dict[str, str]:
    """Column stems for the three statistics, e.g. {"with": "k=3", ...}."""
    kw = Condition.parse(with_history).history_k
    ko = Condition.parse(without_history).history_k
    return {"with": f"k={kw}", "without": f"k={ko}", "partial": f"Partial+ k={ko} (%)"}


def main_results(
    df: pd.DataFrame, with_history: str, without_history: str, spec: BootstrapSpec
) -> pd.DataFrame:
    """Wide table: ``family``, ``preset`` and per corpus and statistic: mean, low, high, n."""
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
    return out


def display_columns(table: pd.DataFrame) -> list[str]:
    """The columns shown in the Markdown/LaTeX versions (means only; CSV keeps the CIs)."""
    return [c for c in table.columns if not c.endswith((" low", " high", " n"))]


def drop_empty_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Presets with no valid evaluation anywhere are dropped (e.g. only crashed runs)."""
    stats = [c for c in display_columns(table) if c not in ("family", "preset")]
    keep = table[stats].notna().any(axis=1) if stats else np.ones(len(table), bool)
    return table[keep].reset_index(drop=True)
