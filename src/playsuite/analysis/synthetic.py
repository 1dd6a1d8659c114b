"""Synthetic scores tables with planted effects, for tests and the paper-scale benchmark.

Levels come from an ordinal model: a latent score ``skill[preset] + effect[condition, preset]
+ genre_effect[genre] - difficulty[game] + noise`` is cut at fixed thresholds into 0..4. Because
the planted quantities are known, tests can check that statistics recover them (a ranking, a
genre effect, a history effect) without trusting the code under test.
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
