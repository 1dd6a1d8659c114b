"""Game-level bootstrap, vectorised.

Episodes of one game are not independent draws (every model meets the same hard game), so every
confidence interval resamples *games* with replacement and carries all of a game's cells along.
A resample is a vector of counts over games; a statistic that is a ratio of sums over games
(a mean over valid cells, a share, a matched mean difference) is then one matrix product per
block of resamples. The same counts serve every column, so paired comparisons stay matched.
Percentile intervals; resamples come from a seeded generator, so a rerun gives the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

#: Resamples per block: bounds memory (block x games float32) at paper scale.
BLOCK = 500


@dataclass(frozen=True)
class BootstrapSpec:
    resamples: int = 10_000
    confidence: float = 0.95
    seed: int = 0

    def __post_init__(self) -> None:
        if self.resamples < 1:
            raise ValueError("bootstrap resamples must be >= 1")
        if not 0 < self.confidence < 1:
            raise ValueError("bootstrap confidence must be in (0, 1)")


def resample_counts(n_games: int, spec: BootstrapSpec) -> Iterator[np.ndarray]:
    """Blocks of resample count vectors (block x n_games): how often each game was drawn."""
    rng = np.random.default_rng(spec.seed)
    done = 0
    while done < spec.resamples:
        size = min(BLOCK, spec.resamples - done)
        draws = rng.integers(0, n_games, size=(size, n_games))
        flat = draws + (np.arange(size)[:, None] * n_games)
        counts = np.bincount(flat.ravel(), minlength=size * n_games).reshape(size, n_games)
        yield counts.astype(np.float32)
        done += size


@dataclass(frozen=True)
class Estimate:
    """Point estimates and percentile bounds, one per statistic column."""

    point: np.ndarray
    low: np.ndarray
    high: np.ndarray
    replicates: np.ndarray  # resamples x columns

    def __len__(self) -> int:
        return len(self.point)


def percentile_bounds(replicates: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1.0 - confidence) / 2.0
    with np.errstate(all="ignore"):
        low = np.nanquantile(replicates, alpha, axis=0)
        high = np.nanquantile(replicates, 1.0 - alpha, axis=0)
    return low, high


def ratio_bootstrap(num: np.ndarray, den: np.ndarray, spec: BootstrapSpec) -> Estimate:
    """Bootstrap of ``sum_g num[g, k] / sum_g den[g, k]`` for each column ``k``.

    ``num``/``den`` are games x columns; a mean over valid cells is num = value (0 where missing),
    den = 1 where valid. Columns whose resampled denominator is 0 give NaN for that resample.
    """
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    if num.shape != den.shape or num.ndim != 2:
        raise ValueError("num and den must be matrices of the same shape (games x columns)")
    with np.errstate(invalid="ignore", divide="ignore"):
        point = num.sum(axis=0) / den.sum(axis=0)
    if num.shape[0] == 0:
        empty = np.full((spec.resamples, num.shape[1]), np.nan)
        return Estimate(point, point.copy(), point.copy(), empty)
    num32 = num.astype(np.float32)
    den32 = den.astype(np.float32)
    blocks = []
    for counts in resample_counts(num.shape[0], spec):
        n = counts @ num32
        d = counts @ den32
        with np.errstate(invalid="ignore", divide="ignore"):
            blocks.append(np.where(d > 0, n / d, np.nan))
    reps = np.vstack(blocks).astype(np.float64)
    low, high = percentile_bounds(reps, spec.confidence)
    return Estimate(point, low, high, reps)


def mean_bootstrap(values: np.ndarray, spec: BootstrapSpec) -> Estimate:
    """Per-column mean over non-NaN cells of a games x columns matrix, with game-level CIs."""
    values = np.asarray(values, dtype=np.float64)
    mask = ~np.isnan(values)
    return ratio_bootstrap(np.where(mask, values, 0.0), mask.astype(float), spec)


def cells(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(num, den) for per-column means of a games x columns matrix with NaN for missing cells."""
    values = np.asarray(values, dtype=np.float64)
    mask = ~np.isnan(values)
    return np.where(mask, values, 0.0), mask.astype(np.float64)


def pooled(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(num, den) as one column: the mean over every valid cell of the matrix.

    This is the paper's "mean over valid evaluations" across models: each valid episode counts
    once, and a game's cells travel together when games are resampled.
    """
    num, den = cells(values)
    return num.sum(axis=1, keepdims=True), den.sum(axis=1, keepdims=True)


def stack(*pairs: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Put several (num, den) pairs side by side so one bootstrap serves them all (matched)."""
    return (np.hstack([p[0] for p in pairs]), np.hstack([p[1] for p in pairs]))
