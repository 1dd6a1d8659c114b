"""Reproduction report: measured numbers beside the paper's published ones.

``config/reference/paper.yaml`` holds the published numbers in nested sections whose paths match
the keys produced here from the measured tables (``table2/itch/qwen3-vl-8b/k3`` ...). A value the
reference leaves null (not transcribed) or a cell that was not measured shows as an em dash; the
report lists every cell that exists on either side.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from playsuite.analysis.history import ALL_MODELS
from playsuite.analysis.tables import to_markdown
from playsuite.config import load_validated

DASH = "—"
SEP = "/"


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, float | None]:
    """Nested mapping -> {"a/b/c": leaf}; leaves are numbers or None."""
    out: dict[str, float | None] = {}
    for key, value in (tree or {}).items():
        path = f"{prefix}{SEP}{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(flatten(value, path))
        else:
            out[path] = None if value is None else float(value)
    return out


def load_reference(path: str | os.PathLike[str]) -> dict[str, float | None]:
    data = load_validated(path, "reference")
    return flatten({k: v for k, v in data.items() if k not in ("source", "notes")})


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def _stat_key(label: str) -> str:
    """'k=3' -> 'k3'; 'Partial+ k=0 (%)' -> 'partial_k0'."""
    if label.startswith("Partial+"):
        return "partial_" + label.split()[1].replace("=", "")
    return label.replace("=", "")


def main_cells(table: pd.DataFrame) -> dict[str, float | None]:
    out = {}
    for col in table.columns:
        if col in ("family", "preset") or col.endswith((" low", " high", " n")):
            continue
        corpus, label = col.split(" ", 1)
        for preset, v in zip(table["preset"], table[col], strict=True):
            out[SEP.join(("table2", corpus, preset, _stat_key(label)))] = _num(v)
    return out


def genre_cells(table: pd.DataFrame) -> dict[str, float | None]:
    out = {}
    for _, row in table.iterrows():
        base = SEP.join(("genres", row["corpus"], row["genre"]))
        out[f"{base}{SEP}N"] = _num(row["N"])
        for col in table.columns:
            if col in ("corpus", "genre", "N") or col.endswith((" low", " high")):
                continue
            k, stat = col.split(" ", 1)
            name = "mean" if stat == "mean" else "partial"
            out[f"{base}{SEP}{k.replace('=', '')}_{name}"] = _num(row[col])
    return out


def agreement_cells(ranges: pd.DataFrame) -> dict[str, float | None]:
    out = {}
    for _, row in ranges.iterrows():
        base = SEP.join(("genre_rank_agreement", row["corpus"]))
        out[f"{base}{SEP}spearman_min"] = _num(row["spearman min"])
        out[f"{base}{SEP}spearman_max"] = _num(row["spearman max"])
    return out


def stability_cells(table: pd.DataFrame) -> dict[str, float | None]:
    out = {}
    for _, row in table.iterrows():
        base = SEP.join(("stability", row["corpus"], f"n{int(row['n'])}"))
        out[f"{base}{SEP}spearman_median"] = _num(row["spearman median"])
        out[f"{base}{SEP}top1_share"] = _num(row["top1 share"])
        out[f"{base}{SEP}topk_share"] = _num(row["topk share"])
    return out


def ablation_cells(name: str, kind: str, table: pd.DataFrame) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    if table.empty:
        return out
    if kind == "history":
        for _, r in table[table["model"] == ALL_MODELS].iterrows():
            out[SEP.join(("ablations", name, r["corpus"], f"k{int(r['history_k'])}"))] = _num(
                r["mean"]
            )
    elif kind == "rate":
        for _, r in table.iterrows():
            base = SEP.join(("ablations", name, r["corpus"], f"hz{r['hz']:g}"))
            out[f"{base}{SEP}gap"] = _num(r.get("gap"))
            if not bool(r["reference"]):
                out[f"{base}{SEP}change_in_gap"] = _num(r.get("change"))
                out[f"{base}{SEP}pearson_r"] = _num(r.get("pearson r"))
    elif kind == "prompting":
        for _, r in table[table["model"] == ALL_MODELS].iterrows():
            out[SEP.join(("ablations", name, r["corpus"], r["variant"]))] = _num(r["delta"])
    return out


def judge_agreement_cells(table: pd.DataFrame) -> dict[str, float | None]:
    """Table 10 rows ("human-human", "{judge}-human") -> agreement/{judge or human}/{stat}."""
    out = {}
    for _, row in table.iterrows():
        who = str(row["comparison"]).removesuffix("-human") or "human"
        for stat in ("alpha", "within_one", "exact", "milestone_agreement"):
            if stat in row:
                out[SEP.join(("agreement", who, stat))] = _num(row[stat])
    return out


def reproduction_table(
    published: Mapping[str, float | None], measured: Mapping[str, float | None]
) -> pd.DataFrame:
    """Every cell on either side: published, measured, and their difference where both exist."""
    keys = list(published) + [k for k in measured if k not in published]
    rows = []
    for key in keys:
        p, m = published.get(key), measured.get(key)
        rows.append(
            {
                "section": key.split(SEP, 1)[0],
                "cell": key,
                "published": p,
                "measured": m,
                "difference": (m - p) if p is not None and m is not None else None,
            }
        )
    return pd.DataFrame(rows, columns=["section", "cell", "published", "measured", "difference"])


def reproduction_markdown(table: pd.DataFrame, title: str = "Reproduction report") -> str:
    shown = table.copy()
    for col in ("published", "measured", "difference"):
        shown[col] = [DASH if v is None or pd.isna(v) else f"{v:.3f}" for v in shown[col]]
    have_both = int((table["published"].notna() & table["measured"].notna()).sum())
    lines = [
        f"# {title}",
        "",
        f"{len(table)} cells: {int(table['published'].notna().sum())} published, "
        f"{int(table['measured'].notna().sum())} measured, {have_both} with both. "
        f"{DASH} = not transcribed in config/reference or not measured in this run.",
        "",
    ]
    for section, part in shown.groupby("section", sort=False):
        lines += [f"## {section}", "", to_markdown(part.drop(columns="section")), ""]
    return "\n".join(lines)


def merge_cells(parts: Iterable[Mapping[str, float | None]]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for p in parts:
        out.update(p)
    return out
