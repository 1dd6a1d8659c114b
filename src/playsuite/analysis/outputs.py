"""Writing a statistic's table: CSV with every column (intervals, counts), Markdown and LaTeX
with the columns a reader compares, best values in bold."""

from __future__ import annotations

import os
from collections.abc import Sequence

import pandas as pd

from playsuite.analysis.tables import best_mask, to_latex, to_markdown
from playsuite.files import write_text_atomic


def write_stat_table(
    table: pd.DataFrame,
    csv: str | os.PathLike[str],
    md: str | os.PathLike[str] | None = None,
    tex: str | os.PathLike[str] | None = None,
    show: Sequence[str] | None = None,
    bold: Sequence[str] = (),
    bold_by: str | None = None,
    caption: str | None = None,
    digits: int = 2,
) -> None:
    write_text_atomic(csv, table.to_csv(index=False))
    shown = table[[c for c in show if c in table.columns]] if show is not None else table
    bold = [c for c in bold if c in shown.columns]
    mask = best_mask(shown, bold, by=bold_by) if bold and not shown.empty else None
    if md is not None:
        text = to_markdown(shown, mask, digits) if not shown.empty else "(no data)\n"
        write_text_atomic(md, text)
    if tex is not None:
        text = to_latex(shown, mask, digits, caption) if not shown.empty else "% no data\n"
        write_text_atomic(tex, text)


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a CSV written by :func:`write_stat_table`; an empty table reads as an empty frame."""
    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()
