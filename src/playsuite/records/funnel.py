"""The catalog funnel (``results/catalog/{corpus}/funnel.csv``): the curation stage writes it, the
reproduction report reads it back to set the paper's Table 5 counts beside ours.

One row per stage (the first is ``ingested``), with the games each source lost there and the
games left after it, per source and in total. It is also a display table (written as csv, md and
tex by the same writer), so it carries no version column; its reader checks the columns and the
counts instead, and names the file when they are wrong.
"""

from __future__ import annotations

import os

import pandas as pd

from playsuite.records.base import RecordError

STAGE = "stage"
KEPT = "kept"
TOTAL_REMAINING = "total remaining"
EXCLUDED_SUFFIX = " excluded"
REMAINING_SUFFIX = " remaining"


def excluded_column(label: str) -> str:
    """The column of games a source (by its display label) lost at each stage."""
    return label + EXCLUDED_SUFFIX


def remaining_column(label: str) -> str:
    """The column of a source's games left after each stage."""
    return label + REMAINING_SUFFIX


def excluded_columns(funnel: pd.DataFrame) -> list[str]:
    return [c for c in funnel.columns if c.endswith(EXCLUDED_SUFFIX)]


def read_funnel(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A funnel table, its columns and counts checked (whole numbers, never negative). An empty
    file (a catalog with no games) reads as an empty table."""
    try:
        funnel = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise RecordError(path, f"not a readable funnel table: {exc}") from None
    missing = [c for c in (STAGE, TOTAL_REMAINING) if c not in funnel.columns]
    if missing:
        raise RecordError(path, f"funnel table lacks column(s) {', '.join(missing)}")
    counts = [c for c in funnel.columns if c.endswith((EXCLUDED_SUFFIX, REMAINING_SUFFIX))]
    for column in counts:
        values = pd.to_numeric(funnel[column], errors="coerce")
        if values.isna().any() or (values < 0).any() or (values % 1 != 0).any():
            raise RecordError(path, f"funnel column {column!r} holds a value that is not a count")
        funnel[column] = values.astype(int)
    return funnel
