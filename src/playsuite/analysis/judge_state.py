"""Judge against state: does the video judge's level agree with state-verified task outcomes?

The paper validates its judge against human ratings on a sample; GameWorld's tasks give ground
truth for every episode of a game with probes. On each task run (one task of one valid episode,
playsuite.analysis.tasks) that a judge scored, the judge's level (0-4, from the video) meets the
task's progress (0-1) and success, both read from the game's state. Per judge and corpus (and all
corpora pooled):

* Spearman's rank correlation between level and progress, and between level and success, with a
  percentile interval from resampling games (a game's task runs and models travel together, as
  in every interval here);
* a confusion table: how many task runs of each level reached their target and how many did not,
  with the mean progress at that level.

An episode whose game declares several tasks gives one pair per task, each with the episode's one
level; unmeasured task runs (no probe value recorded) are left out.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from playsuite.analysis.bootstrap import BootstrapSpec, resample_counts
from playsuite.analysis.scores import valid
from playsuite.records.scores import LEVELS

KEY = ["corpus", "preset", "condition", "game"]
AGREEMENT_COLUMNS = (
    "judge",
    "corpus",
    "games",
    "task runs",
    "spearman progress",
    "spearman progress low",
    "spearman progress high",
    "spearman success",
    "spearman success low",
    "spearman success high",
)
CONFUSION_COLUMNS = (
    "judge",
    "corpus",
    "level",
    "task runs",
    "failed",
    "succeeded",
    "mean progress",
)
ALL = "all"


def paired_runs(scores: pd.DataFrame, task_runs: pd.DataFrame) -> pd.DataFrame:
    """Measured task runs with the level the judge of ``scores`` gave their episode."""
    levels = valid(scores)[[*KEY, "judge", "level"]]
    measured = task_runs[task_runs["progress"].notna()][[*KEY, "task", "progress", "success"]]
    out = measured.merge(levels, on=KEY, how="inner")
    return out.astype({"level": int, "progress": float, "success": float})


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(stats.spearmanr(x, y).statistic)


def _weighted_ranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Average ranks of ``values`` in samples where row i appears ``weights[:, i]`` times
    (resamples x rows): what ranking each replicated sample would give each of its rows."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    group = np.cumsum(np.r_[True, sorted_values[1:] != sorted_values[:-1]]) - 1
    ends = np.r_[starts[1:], len(values)]
    cum = np.concatenate(
        [np.zeros((weights.shape[0], 1)), np.cumsum(weights[:, order], axis=1)], axis=1
    )
    before = cum[:, starts][:, group]
    total = cum[:, ends][:, group] - before
    ranks = np.empty_like(cum[:, 1:])
    ranks[:, order] = before + (total + 1.0) / 2.0
    return ranks


def _weighted_pearson(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    n = w.sum(axis=1, keepdims=True)
    ma, mb = (w * a).sum(axis=1, keepdims=True) / n, (w * b).sum(axis=1, keepdims=True) / n
    da, db = a - ma, b - mb
    cov = (w * da * db).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return cov / np.sqrt((w * da * da).sum(axis=1) * (w * db * db).sum(axis=1))


def spearman_ci(runs: pd.DataFrame, column: str, spec: BootstrapSpec) -> tuple[float, float, float]:
    """(rho, low, high) of level against ``column``; the interval resamples games.

    Each resample is a count per game; its Spearman coefficient is the weighted Pearson
    correlation of the ranks the replicated sample would have (ties get average ranks), which
    is exactly what ranking the replicated rows would give, without building them.
    """
    level = runs["level"].to_numpy(float)
    value = runs[column].to_numpy(float)
    point = _spearman(level, value)
    if math.isnan(point):
        return point, math.nan, math.nan
    codes, games = pd.factorize(runs["game"], sort=True)
    reps = []
    for counts in resample_counts(len(games), spec):
        weights = counts.astype(np.float64)[:, codes]
        rx, ry = _weighted_ranks(level, weights), _weighted_ranks(value, weights)
        reps.append(_weighted_pearson(rx, ry, weights))
    replicates = np.concatenate(reps)
    replicates = replicates[np.isfinite(replicates)]
    if not len(replicates):
        return point, math.nan, math.nan
    alpha = (1.0 - spec.confidence) / 2.0
    low, high = np.quantile(replicates, [alpha, 1.0 - alpha])
    return point, float(low), float(high)


def _scopes(runs: pd.DataFrame):
    for (judge, corpus), part in runs.groupby(["judge", "corpus"], sort=True):
        yield judge, corpus, part
    for judge, part in runs.groupby("judge", sort=True):
        if part["corpus"].nunique() > 1:
            yield judge, ALL, part


def agreement_table(runs: pd.DataFrame, spec: BootstrapSpec) -> pd.DataFrame:
    """Spearman of level with progress and with success, per judge and corpus (and pooled)."""
    rows = []
    for judge, corpus, part in _scopes(runs):
        row = {
            "judge": judge,
            "corpus": corpus,
            "games": int(part["game"].nunique()),
            "task runs": len(part),
        }
        for column in ("progress", "success"):
            rho, low, high = spearman_ci(part, column, spec)
            row[f"spearman {column}"] = rho
            row[f"spearman {column} low"] = low
            row[f"spearman {column} high"] = high
        rows.append(row)
    return pd.DataFrame(rows, columns=list(AGREEMENT_COLUMNS))


def confusion_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Task runs per judge, corpus and level: failed, succeeded, mean progress (every level
    0-4 is listed, with zero counts where no run had it)."""
    rows = []
    for judge, corpus, part in _scopes(runs):
        for level in LEVELS:
            at = part[part["level"] == level]
            rows.append(
                {
                    "judge": judge,
                    "corpus": corpus,
                    "level": level,
                    "task runs": len(at),
                    "failed": int((at["success"] == 0).sum()),
                    "succeeded": int((at["success"] == 1).sum()),
                    "mean progress": float(at["progress"].mean()) if len(at) else math.nan,
                }
            )
    return pd.DataFrame(rows, columns=list(CONFUSION_COLUMNS))
