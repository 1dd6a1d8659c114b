"""Writing result tables in the three forms the paper needs: CSV, LaTeX and Markdown.

One writer for every table keeps formatting (bold best values, rounding) identical across them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from playsuite.files import write_text_atomic


def _cell(value: object, digits: int) -> str:
    if isinstance(value, float):
        return "" if pd.isna(value) else f"{value:.{digits}f}"
    return "" if value is None else str(value)


def _latex_escape(text: str) -> str:
    for a, b in (
        ("\\", r"\textbackslash{}"),
        ("&", r"\&"),
        ("%", r"\%"),
        ("_", r"\_"),
        ("#", r"\#"),
        ("$", r"\$"),
    ):
        text = text.replace(a, b)
    return text


def best_mask(
    df: pd.DataFrame, columns: Iterable[str], higher_is_better: bool = True, by: str | None = None
) -> pd.DataFrame:
    """Boolean frame marking the best value of each column (within each ``by`` group if given)."""
    mask = pd.DataFrame(False, index=df.index, columns=df.columns)
    groups = [df] if by is None else [g for _, g in df.groupby(by, sort=False)]
    for col in columns:
        for group in groups:
            values = pd.to_numeric(group[col], errors="coerce")
            if values.notna().any():
                best = values.max() if higher_is_better else values.min()
                mask.loc[group.index[values == best], col] = True
    return mask


def to_markdown(df: pd.DataFrame, bold: pd.DataFrame | None = None, digits: int = 2) -> str:
    header = "| " + " | ".join(str(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    lines = [header, rule]
    for idx, row in df.iterrows():
        cells = []
        for col in df.columns:
            text = _cell(row[col], digits)
            if bold is not None and bool(bold.at[idx, col]) and text:
                text = f"**{text}**"
            cells.append(text)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def to_latex(
    df: pd.DataFrame, bold: pd.DataFrame | None = None, digits: int = 2, caption: str | None = None
) -> str:
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) else "l" for c in df.columns)
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{_latex_escape(caption)}}}")
    lines += [
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(_latex_escape(str(c)) for c in df.columns) + r" \\",
        r"\midrule",
    ]
    for idx, row in df.iterrows():
        cells = []
        for col in df.columns:
            text = _latex_escape(_cell(row[col], digits))
            if bold is not None and bool(bold.at[idx, col]) and text:
                text = rf"\textbf{{{text}}}"
            cells.append(text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def write_table(
    df: pd.DataFrame,
    csv_path: str | Path,
    md_path: str | Path | None = None,
    tex_path: str | Path | None = None,
    bold: pd.DataFrame | None = None,
    digits: int = 2,
    caption: str | None = None,
) -> None:
    """Write ``df`` atomically as CSV (full precision) and optionally Markdown and LaTeX."""
    write_text_atomic(csv_path, df.to_csv(index=False))
    if md_path is not None:
        write_text_atomic(md_path, to_markdown(df, bold, digits))
    if tex_path is not None:
        write_text_atomic(tex_path, to_latex(df, bold, digits, caption))
