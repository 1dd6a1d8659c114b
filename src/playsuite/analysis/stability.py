"""Leaderboard stability (paper Figure 5): how many games does a stable ranking need?

For each subset size n, many seeded random subsets of n games (without replacement) are drawn;
on each, presets are ranked by mean progress and compared with the ranking on all games:
Spearman rho, whether the top-1 preset is the same, whether the top-k set is the same.
Vectorised: subsets are 0/1 weight rows, means are one matrix product per block of subsets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from playsuite.analysis.bootstrap import cells
from playsuite.analysis.scores import corpus_games, level_matrix, ordered_presets

BLOCK = 250


def _ranks(means: np.ndarray) -> np.ndarray:
    """Rank rows descending (1 = best), ties averaged, NaN means ranked last."""
    filled = np.where(np.isnan(means), -np.inf, means)
    return stats.rankdata(-filled, axis=1)


def _top_set(means: np.ndarray, k: int) -> np.ndarray:
    filled = np.where(np.isnan(means), -np.inf, means)
    return np.sort(np.argsort(-filled, axis=1, kind="stable")[:, :k], axis=1)


def subset_metrics(
    x: np.ndarray, n: int, subsets: int, top: int, rng: np.random.Generator
) -> pd.DataFrame:
    """Per subset: spearman, top1, topk for games x presets levels ``x`` (NaN = not valid)."""
    num, den = cells(x)
    with np.errstate(all="ignore"):
        full = num.sum(0) / den.sum(0)
    full_ranks = _ranks(full[None, :])[0]
    full_top1 = _top_set(full[None, :], 1)[0]
    full_topk = _top_set(full[None, :], top)[0]
    g = x.shape[0]
    out = []
    done = 0
    while done < subsets:
        size = min(BLOCK, subsets - done)
        keys = rng.random((size, g))
        pick = np.argpartition(keys, n - 1, axis=1)[:, :n]
        w = np.zeros((size, g), dtype=np.float32)
        np.put_along_axis(w, pick, 1.0, axis=1)
        with np.errstate(all="ignore"):
            means = (w @ num.astype(np.float32)) / (w @ den.astype(np.float32))
        ranks = _ranks(means)
        rc = ranks - ranks.mean(1, keepdims=True)
        fc = full_ranks - full_ranks.mean()
        with np.errstate(all="ignore"):
            rho = (rc @ fc) / np.sqrt((rc**2).sum(1) * (fc**2).sum())
        top1 = (_top_set(means, 1) == full_top1).all(axis=1)
        topk = (_top_set(means, top) == full_topk).all(axis=1)
        out.append(pd.DataFrame({"spearman": rho, "top1": top1, "topk": topk}))
        done += size
    return pd.concat(out, ignore_index=True)


def _wilson(k: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return (np.nan, np.nan)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def stability(
    df: pd.DataFrame,
    condition: str,
    sizes: Sequence[int],
    subsets: int,
    top: int,
    seed: int,
) -> pd.DataFrame:
    """Per corpus and size: median rho with 5-95 % band, top-1 and top-k shares with Wilson CIs.

    Sizes not smaller than the corpus are skipped (a "subset" would be the whole corpus). With
    no more than ``top`` presets the top-k share is undefined (NaN).
    """
    rows = []
    presets = ordered_presets(df)
    for ci, corpus in enumerate(sorted(df["corpus"].unique())):
        games = corpus_games(df, corpus)
        x = level_matrix(df, corpus, condition, presets, games)
        keep = ~np.isnan(x).all(axis=1)
        x = x[keep]
        for n in sizes:
            if n >= x.shape[0] or n < 1:
                continue
            rng = np.random.default_rng([seed, ci, n])
            m = subset_metrics(x, n, subsets, top, rng)
            t1 = int(m["top1"].sum())
            tk = int(m["topk"].sum())
            t1_lo, t1_hi = _wilson(t1, len(m))
            tk_lo, tk_hi = _wilson(tk, len(m))
            valid_topk = len(presets) > top
            rows.append(
                {
                    "corpus": corpus,
                    "n": n,
                    "games": int(x.shape[0]),
                    "models": len(presets),
                    "subsets": len(m),
                    "spearman median": float(np.nanmedian(m["spearman"])),
                    "spearman p05": float(np.nanquantile(m["spearman"], 0.05)),
                    "spearman p95": float(np.nanquantile(m["spearman"], 0.95)),
                    "top1 share": t1 / len(m),
                    "top1 low": t1_lo,
                    "top1 high": t1_hi,
                    "topk share": tk / len(m) if valid_topk else np.nan,
                    "topk low": tk_lo if valid_topk else np.nan,
                    "topk high": tk_hi if valid_topk else np.nan,
                    "top": top,
                }
            )
    return pd.DataFrame(rows)
