"""Scores tables as the statistics use them (``results/scores/{judge}.tsv``).

The table's format and its checks are the contract of playsuite.records.scores. Every statistic
starts from the same checked table and the same game x preset matrices, so the rules for what
counts (only ``status == ok`` rows, one row per episode) live in one place.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from playsuite.judge.levels import PARTIAL_PLUS
from playsuite.records.scores import COLUMNS as SCORE_COLUMNS
from playsuite.records.scores import EPISODE_KEY, ScoresError, check_scores, read_scores_file

#: The table's names as the analysis modules and their callers use them.
__all__ = [
    "EPISODE_KEY",
    "FAMILY_ORDER",
    "SCORE_COLUMNS",
    "UNKNOWN_GENRE",
    "ScoresError",
    "check_scores",
    "corpus_games",
    "game_genres",
    "level_matrix",
    "ordered_presets",
    "partial_plus",
    "read_scores",
    "valid",
]

#: Families in the order the paper's tables list them; people (playsuite.human) last.
FAMILY_ORDER: tuple[str, ...] = ("VLM", "CUA", "VLA", "baseline", "human")

#: Genre label of games whose catalog row has none.
UNKNOWN_GENRE = "unclassified"


def read_scores(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read and check a scores table (playsuite.records.scores): TSV as the judge stage writes
    it, or CSV (``.csv``). A game without a genre is its own group, named, not a missing value
    in every table."""
    df = read_scores_file(path)
    df.loc[df["genre"] == "", "genre"] = UNKNOWN_GENRE
    return df


def valid(df: pd.DataFrame) -> pd.DataFrame:
    """Valid evaluations: the rows that enter means."""
    return df[df["status"] == "ok"]


def partial_plus(levels: np.ndarray) -> np.ndarray:
    """1.0 where level >= 2 ("Partial+"), 0.0 below, NaN where the level is missing."""
    out = (levels >= PARTIAL_PLUS).astype(float)
    out[np.isnan(levels)] = np.nan
    return out


def ordered_presets(df: pd.DataFrame, presets: Sequence[str] | None = None) -> list[str]:
    """Presets present in ``df`` (or the given ones), grouped by family in paper order."""
    fam = df.drop_duplicates("preset").set_index("preset")["family"].to_dict()
    names = list(presets) if presets is not None else sorted(fam)
    rank = {f: i for i, f in enumerate(FAMILY_ORDER)}
    return sorted(names, key=lambda p: (rank.get(fam.get(p, ""), len(rank)), names.index(p)))


def level_matrix(
    df: pd.DataFrame,
    corpus: str,
    condition: str,
    presets: Sequence[str],
    games: Sequence[str],
) -> np.ndarray:
    """Games x presets matrix of levels for one corpus and condition; NaN where not valid."""
    sub = valid(df)
    sub = sub[(sub["corpus"] == corpus) & (sub["condition"] == condition)]
    wide = sub.pivot(index="game", columns="preset", values="level")
    wide = wide.reindex(index=list(games), columns=list(presets))
    return wide.to_numpy(dtype=float)


def corpus_games(df: pd.DataFrame, corpus: str) -> list[str]:
    """Every game of a corpus that appears in the table (any preset, condition or status)."""
    return sorted(df.loc[df["corpus"] == corpus, "game"].unique())


def game_genres(df: pd.DataFrame, corpus: str) -> pd.Series:
    """Genre of each game of a corpus (first seen; the catalog gives one genre per game)."""
    sub = df[df["corpus"] == corpus].drop_duplicates("game").set_index("game")["genre"]
    return sub.sort_index()
