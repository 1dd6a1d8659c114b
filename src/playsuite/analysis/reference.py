"""Reproduction report: every published number beside what this run measured.

``config/reference/paper.yaml`` holds the paper's printed numbers in nested sections whose paths
are the keys of the measured cells built here (``table2/itch/qwen3-vl-8b/k3`` ...). Shares are in
percent on both sides (the builders convert the fractions some tables keep). For every cell the
report gives published, measured, their difference, the measured 95 % interval where the package
computes one (a game bootstrap unless the cell's note says otherwise) and whether the published
value lies inside it; a published cell the run did not measure says why (:func:`why_not_measured`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from playsuite.analysis.reference_cells import (
    SEP,
    Measured,
    ablation_cells,
    agreement_cells,
    cost_cells,
    curation_cells,
    efficiency_cells,
    funnel_cells,
    genre_cells,
    harm_cells,
    judge_agreement_cells,
    main_cells,
    merge_cells,
    stability_cells,
)
from playsuite.analysis.tables import to_markdown
from playsuite.config import load_validated

DASH = "—"
NO_INTERVAL = "no interval"

__all__ = [
    "COLUMNS",
    "NEVER_MEASURED",
    "Measured",
    "RunContext",
    "ablation_cells",
    "agreement_cells",
    "cost_cells",
    "curation_cells",
    "efficiency_cells",
    "flatten",
    "funnel_cells",
    "genre_cells",
    "harm_cells",
    "judge_agreement_cells",
    "load_reference",
    "main_cells",
    "merge_cells",
    "reproduction_markdown",
    "reproduction_table",
    "stability_cells",
    "why_not_measured",
]


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
    return flatten({k: v for k, v in data.items() if k != "source"})


# --- why a published cell has no measurement ----------------------------------------------------

#: Published numbers no stage of the package measures, by key prefix.
NEVER_MEASURED: dict[str, str] = {
    "curation/thresholds/": "a threshold of the curation policy, not a measurement",
    "curation/total/launchable": "the funnel ends at the curated corpus, not at the paper's "
    "larger launchable pool",
    "efficiency/judge/": "the judge throughput table (rule efficiency_judge) is end to end per "
    "setting; it does not separate baseline, steady-state and end-to-end cells",
    "agreement/validation/itch_videos": "the ratings CSV has no corpus column",
    "agreement/validation/pyweek_videos": "the ratings CSV has no corpus column",
}

CORPUS_SECTIONS = ("table2", "table3", "table11", "genre_rank_agreement", "stability", "cost")


@dataclass(frozen=True)
class RunContext:
    """What the run that produced the measured cells had, for saying why a cell is missing."""

    corpora: Collection[str] = ()
    presets: Collection[str] = ()
    #: ablation name -> corpora its table covers
    ablations: Mapping[str, Collection[str]] = field(default_factory=dict)
    ratings: bool = False
    judges_rated: Collection[str] = ()
    benchmarks: Collection[str] = ()  # benchmark files present
    cost_records: bool = False
    genre_min_games: int | None = None
    funnels: Collection[str] = ()  # corpora whose catalog funnel was read
    harm: Collection[str] = ()  # corpora whose harm-category table (Table 4) was read


def why_not_measured(key: str, ctx: RunContext) -> str:
    """The reason a published cell has no measured value in this run."""
    for prefix, reason in NEVER_MEASURED.items():
        if key.startswith(prefix):
            return reason
    parts = key.split(SEP)
    section = parts[0]
    if section == "table4":
        if parts[1] not in ctx.harm:
            return "no harm table read (results/catalog/{corpus}/harm_categories.csv absent)"
        return "candidates not validated by a model (catalog.harm.validator is null)"
    if section == "table5" or (section == "curation" and parts[-1] != "evaluated"):
        corpora = ctx.funnels if section == "table5" else [c for c in ctx.funnels if c == parts[1]]
        if not corpora:
            return "no catalog funnel read (results/catalog/{corpus}/funnel.csv absent)"
        return "stage not in the catalog funnel"
    if section in CORPUS_SECTIONS or (section == "curation" and parts[1] != "total"):
        corpus = parts[1]
        if corpus not in ctx.corpora:
            return "corpus not in this run"
        if section in ("table2", "cost") and parts[2] not in ctx.presets:
            return "preset not in this run"
        if section == "cost" and not ctx.cost_records:
            return "needs cluster accounting: no cost records for this corpus's runs"
        if section in ("table3", "table11"):
            return (
                f"genre absent, or below the {ctx.genre_min_games}-game cut on every corpus"
                if ctx.genre_min_games is not None
                else "genre absent or below the cut"
            )
        if section == "stability":
            return "subset size not planned (analysis.stability.sizes) or not below the corpus size"
    if section == "ablations":
        name, corpus = parts[1], parts[2]
        if name not in ctx.ablations:
            return "not planned in this config"
        if corpus not in ctx.ablations[name]:
            return "corpus not in this ablation's run"
        if parts[-1] == "pearson_r":
            return "needs at least three models"
        return "condition not run"
    if section == "agreement":
        if not ctx.ratings:
            return "no ratings CSV (analysis.ratings is null)"
        if parts[1] not in ("human", "validation") and parts[1] not in ctx.judges_rated:
            return "judge not in the ratings CSV"
        return "no agreement computed (no pairs or no milestone fields)"
    if section == "efficiency":
        name = {"launch": "launch.tsv", "play": "throughput.tsv"}.get(parts[1], parts[1])
        if name not in ctx.benchmarks:
            return f"benchmark not run: no {name} under analysis.benchmarks"
        return f"no matching row in {name} (e.g. no run with that many workers)"
    return "not measured in this run"


# --- the report ----------------------------------------------------------------------------------

COLUMNS = [
    "section",
    "cell",
    "published",
    "measured",
    "low",
    "high",
    "difference",
    "inside",
    "note",
]


def _inside(p: float | None, m: Measured | None) -> str:
    if p is None or m is None or m.value is None:
        return ""
    if m.low is None or m.high is None:
        return NO_INTERVAL
    return "yes" if m.low <= p <= m.high else "no"


def reproduction_table(
    published: Mapping[str, float | None],
    measured: Mapping[str, Measured],
    reason: Callable[[str], str] | None = None,
) -> pd.DataFrame:
    """Every cell on either side: published, measured with its interval, the difference, whether
    the published value lies inside the interval (yes / no / no interval), and a note (how the
    value was measured, or why it was not)."""
    keys = list(published) + [k for k in measured if k not in published]
    rows = []
    for key in keys:
        p = published.get(key)
        m = measured.get(key)
        value = m.value if m is not None else None
        if value is None and p is not None:
            note = reason(key) if reason is not None else "not measured in this run"
        elif value is not None and p is None:
            note = "not published"
        else:
            note = m.note if m is not None else ""
        rows.append(
            {
                "section": key.split(SEP, 1)[0],
                "cell": key,
                "published": p,
                "measured": value,
                "low": m.low if m is not None and value is not None else None,
                "high": m.high if m is not None and value is not None else None,
                "difference": (value - p) if p is not None and value is not None else None,
                "inside": _inside(p, m),
                "note": note,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def _fmt(v: Any) -> str:
    """Three decimals; whole numbers (counts, thresholds) without."""
    if v is None or pd.isna(v):
        return DASH
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.3f}"


def reproduction_markdown(table: pd.DataFrame, title: str = "Reproduction report") -> str:
    shown = table.copy()
    for col in ("published", "measured", "difference"):
        shown[col] = [_fmt(v) for v in shown[col]]
    shown["95% interval"] = [
        DASH if pd.isna(lo) or pd.isna(hi) else f"[{lo:.3f}, {hi:.3f}]"
        for lo, hi in zip(table["low"], table["high"], strict=True)
    ]
    shown["inside"] = [v if v else DASH for v in shown["inside"]]
    shown = shown[
        ["section", "cell", "published", "measured", "95% interval", "difference", "inside", "note"]
    ]
    has_p, has_m = table["published"].notna(), table["measured"].notna()
    both = has_p & has_m
    count = table.loc[both, "inside"].value_counts()
    lines = [
        f"# {title}",
        "",
        f"{len(table)} cells: {int(has_p.sum())} published, {int(has_m.sum())} measured, "
        f"{int(both.sum())} with both. Of those, the published value lies inside the measured "
        f"95 % interval for {int(count.get('yes', 0))}, outside for {int(count.get('no', 0))}; "
        f"{int(count.get(NO_INTERVAL, 0))} have no interval. Shares are percent. "
        f"{int((has_p & ~has_m).sum())} published cells were not measured (the note says why).",
        "",
    ]
    for section, part in shown.groupby("section", sort=False):
        lines += [f"## {section}", "", to_markdown(part.drop(columns="section")), ""]
    return "\n".join(lines)
