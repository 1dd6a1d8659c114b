"""The scores table ``results/scores/{judge}.tsv``: one row per judged episode.

Columns (:data:`COLUMNS`, DESIGN.md "Tables"): ``corpus preset family condition history_k hz
variant game genre judge level status``, then ``format`` (:data:`SCORES_FORMAT`) in the files the
judge stage writes. ``status`` is ``ok`` when the judge gave the episode a level (0..4); any other
status says why the row does not count (the run's own status, ``judge_*``, ``corrupt_meta``,
``missing_episode``; playsuite.judge.scores). ``level`` is empty when there is none. One row per
episode (corpus, preset, condition, game).

A table the analysis reads may also be a CSV made elsewhere (``.csv``, no ``format``): it is
read as format 1 and checked the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from playsuite.files import atomic_open
from playsuite.records.base import FORMAT_FIELD, RecordError, check_format

#: Version of the scores table this code writes (and the newest it reads).
SCORES_FORMAT = 1
COLUMNS: tuple[str, ...] = (
    "corpus",
    "preset",
    "family",
    "condition",
    "history_k",
    "hz",
    "variant",
    "game",
    "genre",
    "judge",
    "level",
    "status",
)
#: What identifies an episode: no two rows of a table share it.
EPISODE_KEY = ["corpus", "preset", "condition", "game"]
TEXT_COLUMNS = ("corpus", "preset", "family", "condition", "variant", "game", "genre", "judge")
LEVELS = (0, 1, 2, 3, 4)


class ScoresError(RecordError):
    """A scores table that does not follow the documented format; ``file`` is its source."""


def scores_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The table of ``rows`` (mappings holding :data:`COLUMNS`), in episode order."""
    df = pd.DataFrame(list(rows), columns=list(COLUMNS))
    df["level"] = df["level"].astype("Int64")
    return df.sort_values(["corpus", "preset", "condition", "game"], kind="stable").reset_index(
        drop=True
    )


def write_scores(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write the table as TSV with its ``format`` column, atomically."""
    out = df.loc[:, list(COLUMNS)].assign(**{FORMAT_FIELD: SCORES_FORMAT})
    with atomic_open(path) as fh:
        out.to_csv(fh, sep="\t", index=False)


def check_scores(df: pd.DataFrame, source: str = "scores") -> pd.DataFrame:
    """Validate columns, types and uniqueness; return a typed copy (``source`` names the table
    in errors).

    Levels of rows that are not ``ok`` may be empty; levels of ``ok`` rows must be 0..4.
    """
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ScoresError(source, f"missing columns {missing}; expected {list(COLUMNS)}")
    out = df.copy()
    for col in TEXT_COLUMNS:
        out[col] = out[col].fillna("").astype(str)
    out["status"] = out["status"].fillna("").astype(str)
    out["history_k"] = pd.to_numeric(out["history_k"], errors="coerce")
    out["hz"] = pd.to_numeric(out["hz"], errors="coerce")
    out["level"] = pd.to_numeric(out["level"], errors="coerce")
    ok = out["status"] == "ok"
    bad = ok & ~out["level"].isin(list(LEVELS))
    if bad.any():
        row = out[bad].iloc[0]
        raise ScoresError(
            source,
            f"{int(bad.sum())} ok rows have a level outside 0..4, e.g. "
            f"{row['preset']}/{row['condition']}/{row['game']}: {row['level']!r}",
        )
    dup = out.duplicated(EPISODE_KEY, keep=False)
    if dup.any():
        row = out[dup].iloc[0]
        raise ScoresError(
            source,
            f"{int(dup.sum())} rows repeat an episode, e.g. "
            f"{row['corpus']}/{row['preset']}/{row['condition']}/{row['game']}",
        )
    return out


def read_scores_file(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A scores table, checked (:func:`check_scores`) and without its ``format`` column: TSV as
    the judge stage writes it, or CSV (``.csv``). A game without a genre has an empty one."""
    sep = "," if str(path).lower().endswith(".csv") else "\t"
    try:
        df = pd.read_csv(
            path,
            sep=sep,
            dtype={"game": str, "genre": str, FORMAT_FIELD: str},
            keep_default_na=True,
        )
    except FileNotFoundError:
        raise FileNotFoundError(f"scores table not found: {path}") from None
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ScoresError(path, f"cannot be read as a table: {exc}") from None
    if FORMAT_FIELD in df.columns:
        try:
            for value in df[FORMAT_FIELD].fillna("").unique():
                check_format(path, value, SCORES_FORMAT, "scores table")
        except RecordError as exc:
            raise ScoresError(path, str(exc).removeprefix(f"{path}: ")) from None
        df = df.drop(columns=FORMAT_FIELD)
    return check_scores(df, source=str(path))
