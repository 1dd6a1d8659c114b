"""Reading and checking scores tables (``results/scores/{judge}.tsv``, DESIGN.md "Tables").

Every statistic starts from the same checked table and the same game x preset matrices, so the
rules for what counts (only ``status == ok`` rows, one row per episode) live in one place.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from playsuite.judge.levels import PARTIAL_PLUS
from playsuite.judge.scores import SCORE_COLUMNS

# The scores table's columns are the judge stage's contract (DESIGN.md "Tables").

#: Families in the order the paper's tables list them.
FAMILY_ORDER: tuple[str, ...] = ("VLM", "CUA", "VLA", "baseline")

EPISODE_KEY = ["corpus", "preset", "condition", "game"]


class ScoresError(ValueError):
    """A scores table that does not follow the documented format."""


def check_scores(df: pd.DataFrame, source: str = "scores") -> pd.DataFrame:
    """Validate columns, types and uniqueness; return a typed copy.

    Levels of rows that are not ``ok`` may be empty; levels of ``ok`` rows must be 0..4.
    """
    missing = [c for c in SCORE_COLUMNS if c not in df.columns]
    if missing:
        raise ScoresError(f"{source}: missing columns {missing}; expected {list(SCORE_COLUMNS)}")
    out = df.copy()
    for col in ("corpus", "preset", "family", "condition", "variant", "game", "genre", "judge"):
        out[col] = out[col].fillna("").astype(str)
    out["status"] = out["status"].fillna("").astype(str)
    out["history_k"] = pd.to_numeric(out["history_k"], errors="coerce")
    out["hz"] = pd.to_numeric(out["hz"], errors="coerce")
    out["level"] = pd.to_numeric(out["level"], errors="coerce")
    ok = out["status"] == "ok"
    bad = ok & ~out["level"].isin([0, 1, 2, 3, 4])
    if bad.any():
        row = out[bad].iloc[0]
        raise ScoresError(
            f"{source}: {int(bad.sum())} ok rows have a level outside 0..4, e.g. "
            f"{row['preset']}/{row['condition']}/{row['game']}: {row['level']!r}"
        )
    dup = out.duplicated(EPISODE_KEY, keep=False)
    if dup.any():
        row = out[dup].iloc[0]
        raise ScoresError(
            f"{source}: {int(dup.sum())} rows repeat an episode, e.g. "
            f"{row['corpus']}/{row['preset']}/{row['condition']}/{row['game']}"
        )
    return out


#: Genre label of games whose catalog row has none.
UNKNOWN_GENRE = "unclassified"


def read_scores(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read and check a scores table: TSV as the judge stage writes it, or CSV (``.csv``)."""
    sep = "," if str(path).lower().endswith(".csv") else "\t"
    try:
        df = pd.read_csv(path, sep=sep, dtype={"game": str, "genre": str}, keep_default_na=True)
    except FileNotFoundError:
        raise FileNotFoundError(f"scores table not found: {path}") from None
    if "genre" in df.columns:
        # A game without a genre is its own group, named, not a missing value in every table.
        df["genre"] = df["genre"].fillna(UNKNOWN_GENRE)
    return check_scores(df, source=str(path))


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
