"""Synthetic scores tables with planted effects, for tests and the paper-scale benchmark.

Levels come from an ordinal model: a latent score ``skill[preset] + effect[condition, preset]
+ genre_effect[genre] - difficulty[game] + noise`` is cut at fixed thresholds into 0..4. Because
the planted quantities are known, tests can check that statistics recover them (a ranking, a
genre effect, a history effect) without trusting the code under test.

A cell can instead be *planted* at a published value (``SyntheticSpec.planted``: a mean level and
optionally the Partial+ share): its games are ranked by the same game-level latent (difficulty
plus episode noise, so games stay correlated across presets) and the ranks are cut at the
quantiles of a level distribution with exactly that mean and share. The sample then holds the
planted value up to rounding and the failures, while a game bootstrap still sees the
game-to-game variation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from playsuite.config import Condition

#: Latent cut points between levels 0|1|2|3|4.
THRESHOLDS = np.array([-0.5, 0.5, 1.5, 2.5])

DEFAULT_GENRES = ("Action", "Adventure", "Puzzle", "Shooter", "Simulation", "Racing", "Strategy")


@dataclass
class SyntheticSpec:
    """What to generate. Effects are on the latent scale (about one level per unit)."""

    presets: Mapping[str, tuple[str, float]]  # name -> (family, skill)
    conditions: Sequence[str] = ("k0-hz0.33-base", "k3-hz0.33-base")
    corpora: Mapping[str, int] = field(default_factory=lambda: {"itch": 500})
    genres: Sequence[str] = DEFAULT_GENRES
    genre_effects: Mapping[str, float] = field(default_factory=dict)
    #: condition -> effect for every preset, or condition -> {preset: effect}
    condition_effects: Mapping[str, float | Mapping[str, float]] = field(default_factory=dict)
    difficulty_sd: float = 1.0
    noise_sd: float = 0.7
    failure_rate: float = 0.02
    judge: str = "frame"
    seed: int = 0
    #: (corpus, preset, condition) -> (mean level, Partial+ share as a fraction, or None)
    planted: Mapping[tuple[str, str, str], tuple[float, float | None]] = field(default_factory=dict)


def planted_shares(mean: float, partial: float | None = None) -> np.ndarray:
    """P(level >= j) for j = 1..4 of a level distribution with the given mean and P(level >= 2).

    Without ``partial`` a share of about a third of the mean is used. Of the many distributions
    with these two moments, one with a third of Partial+ reaching level 3 and a tenth level 4 is
    taken, moved as little as needed to stay a distribution.
    """
    if not 0.0 <= mean <= 4.0:
        raise ValueError(f"planted mean {mean} is outside 0..4")
    p = min(max(mean / 3.0, (mean - 1.0) / 3.0), 1.0) if partial is None else float(partial)
    rest = mean - p  # = P(>=1) + P(>=3) + P(>=4)
    if not p <= rest <= 1.0 + 2.0 * p + 1e-12:
        raise ValueError(f"no level distribution has mean {mean} and P(level >= 2) = {p}")
    q3, q4 = p / 3.0, p / 10.0
    q1 = rest - q3 - q4
    if not p <= q1 <= 1.0:  # level 1 cannot take that mass: move the excess onto levels 3 and 4
        q1 = min(max(q1, p), 1.0)
        extra = rest - q1  # <= 2p, so q4 <= q3 <= p below
        q3 = min(p, extra / 1.3)
        q4 = extra - q3
    return np.array([q1, p, q3, q4])


def _planted_levels(latent: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """Levels whose empirical shares P(level >= j) match ``shares``, ordered by ``latent``."""
    n = len(latent)
    quantile = (np.argsort(np.argsort(latent, kind="stable"), kind="stable") + 0.5) / n
    return (quantile[:, None] >= 1.0 - shares[None, :]).sum(axis=1).astype(float)


def paper_presets(n: int = 14) -> dict[str, tuple[str, float]]:
    """``n`` presets with distinct skills spread over families, strongest first."""
    families = ["VLM"] * 7 + ["CUA"] * 6 + ["VLA"]
    families = (families * ((n // len(families)) + 1))[:n]
    return {f"model-{i:02d}": (families[i], 1.2 - 1.6 * i / max(n - 1, 1)) for i in range(n)}


def _effect(spec: SyntheticSpec, condition: str, preset: str) -> float:
    eff = spec.condition_effects.get(condition, 0.0)
    if isinstance(eff, Mapping):
        return float(eff.get(preset, 0.0))
    return float(eff)


def synthetic_scores(spec: SyntheticSpec) -> pd.DataFrame:
    """A scores table in the documented format (one row per episode)."""
    rng = np.random.default_rng(spec.seed)
    frames = []
    for corpus, n_games in spec.corpora.items():
        games = np.array([f"{corpus}-game-{i:05d}" for i in range(n_games)])
        genre = rng.choice(np.asarray(spec.genres), size=n_games)
        difficulty = rng.normal(0.0, spec.difficulty_sd, size=n_games)
        g_eff = np.array([spec.genre_effects.get(g, 0.0) for g in genre])
        for preset, (family, skill) in spec.presets.items():
            for cond in spec.conditions:
                c = Condition.parse(cond)
                latent = (
                    skill
                    + _effect(spec, cond, preset)
                    + g_eff
                    - difficulty
                    + rng.normal(0.0, spec.noise_sd, size=n_games)
                )
                target = spec.planted.get((corpus, preset, cond))
                if target is not None:
                    level = _planted_levels(latent, planted_shares(*target))
                else:
                    level = np.searchsorted(THRESHOLDS, latent).astype(float)
                failed = rng.random(n_games) < spec.failure_rate
                status = np.where(failed, "crashed", "ok")
                level[failed] = np.nan
                frames.append(
                    pd.DataFrame(
                        {
                            "corpus": corpus,
                            "preset": preset,
                            "family": family,
                            "condition": c.name,
                            "history_k": c.history_k,
                            "hz": c.hz,
                            "variant": c.variant,
                            "game": games,
                            "genre": genre,
                            "judge": spec.judge,
                            "level": level,
                            "status": status,
                        }
                    )
                )
    out = pd.concat(frames, ignore_index=True)
    out["level"] = out["level"].astype("Int64")
    return out


def write_scores_tsv(df: pd.DataFrame, path: str) -> None:
    from playsuite.files import write_text_atomic

    write_text_atomic(path, df.to_csv(sep="\t", index=False))


def plant_table2(
    published: Mapping[str, float | None], with_history: str, without_history: str
) -> dict[tuple[str, str, str], tuple[float, float | None]]:
    """``SyntheticSpec.planted`` for every Table 2 cell of a flattened reference
    (``table2/{corpus}/{preset}/{k3,k0,partial_k0}``, Partial+ in percent): the with-history
    mean, and the without-history mean with its Partial+ share."""
    cells: dict[tuple[str, str], dict[str, float]] = {}
    for key, value in published.items():
        parts = key.split("/")
        if parts[0] != "table2" or value is None:
            continue
        cells.setdefault((parts[1], parts[2]), {})[parts[3]] = float(value)
    out: dict[tuple[str, str, str], tuple[float, float | None]] = {}
    for (corpus, preset), stats in cells.items():
        if "k3" in stats:
            out[(corpus, preset, with_history)] = (stats["k3"], None)
        if "k0" in stats:
            partial = stats.get("partial_k0")
            out[(corpus, preset, without_history)] = (
                stats["k0"],
                None if partial is None else partial / 100.0,
            )
    return out
