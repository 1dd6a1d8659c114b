"""The measured cells of the reproduction report (:mod:`playsuite.analysis.reference`): one builder
per results table, each keyed by the cell's path in ``config/reference/paper.yaml``.

Builders convert to the reference's units (shares in percent) and carry the measured 95 % interval
where the package computes one; the report module compares them with the published numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from playsuite.analysis.ablations import Ablation
from playsuite.analysis.history import ALL_MODELS
from playsuite.analysis.scores import valid
from playsuite.config import Condition
from playsuite.corpus import SOURCE_LABELS
from playsuite.records.funnel import (
    STAGE,
    TOTAL_REMAINING,
    excluded_columns,
    remaining_column,
)

SEP = "/"  # between the parts of a cell key


@dataclass(frozen=True)
class Measured:
    """One measured cell: value, interval bounds where computed, and a note on how it was got."""

    value: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def _cell(
    row: Mapping[str, Any] | pd.Series, col: str, scale: float = 1.0, note: str = ""
) -> Measured:
    """A measured cell from ``row[col]`` and, where present, ``row[col + ' low'/' high']``."""
    value = _num(row.get(col))
    low, high = _num(row.get(f"{col} low")), _num(row.get(f"{col} high"))
    return Measured(
        None if value is None else value * scale,
        None if low is None else low * scale,
        None if high is None else high * scale,
        note,
    )


def _negated(m: Measured, note: str) -> Measured:
    """The same cell with the opposite sign (the interval flips)."""

    def neg(v: float | None) -> float | None:
        return None if v is None else -v

    return Measured(neg(m.value), neg(m.high), neg(m.low), note)


def _stat_key(label: str) -> str:
    """'k=3' -> 'k3'; 'Partial+ k=0 (%)' -> 'partial_k0'."""
    if label.startswith("Partial+"):
        return "partial_" + label.split()[1].replace("=", "")
    return label.replace("=", "")


# --- measured cells, one builder per results table ----------------------------------------------


def main_cells(table: pd.DataFrame) -> dict[str, Measured]:
    """Table 2: ``table2/{corpus}/{preset}/{k3,k0,partial_k0}`` with game-bootstrap intervals."""
    out = {}
    for col in table.columns:
        if col in ("family", "preset") or col.endswith((" low", " high", " n")):
            continue
        corpus, label = col.split(" ", 1)
        for _, row in table.iterrows():
            key = SEP.join(("table2", corpus, row["preset"], _stat_key(label)))
            out[key] = _cell(row, col)
    return out


def genre_cells(table: pd.DataFrame) -> dict[str, Measured]:
    """Tables 3 and 11 from the genre table.

    ``table3/{corpus}/{genre}/{N, kK_mean, kK_partial}`` and ``table11/{corpus}/{genre}/{N, kK}``
    for every history length K the table holds (the paper prints k=0 in Table 3, k=0 and k=3 in
    Table 11).
    """
    out: dict[str, Measured] = {}
    for _, row in table.iterrows():
        n = Measured(_num(row["N"]), note="a count (no interval)")
        for section in ("table3", "table11"):
            out[SEP.join((section, row["corpus"], row["genre"], "N"))] = n
        for col in table.columns:
            if col in ("corpus", "genre", "N") or col.endswith((" low", " high")):
                continue
            k, stat = col.split(" ", 1)
            k = k.replace("=", "")
            base = (row["corpus"], row["genre"])
            if stat == "mean":
                out[SEP.join(("table3", *base, f"{k}_mean"))] = _cell(row, col)
                out[SEP.join(("table11", *base, k))] = _cell(row, col)
            else:
                out[SEP.join(("table3", *base, f"{k}_partial"))] = _cell(row, col)
    return out


def agreement_cells(ranges: pd.DataFrame) -> dict[str, Measured]:
    """Genre ranking vs overall ranking: the min-max of the per-genre Spearman coefficients."""
    out = {}
    note = "a range over genres (no interval)"
    for _, row in ranges.iterrows():
        base = SEP.join(("genre_rank_agreement", row["corpus"]))
        out[f"{base}{SEP}spearman_min"] = Measured(_num(row["spearman min"]), note=note)
        out[f"{base}{SEP}spearman_max"] = Measured(_num(row["spearman max"]), note=note)
    return out


def stability_cells(table: pd.DataFrame) -> dict[str, Measured]:
    """Figure 5: median Spearman and top-1 / top-k recovery (percent) per subset size.

    The recovery shares carry Wilson intervals over the drawn subsets (not a game bootstrap); the
    median has none (its 5-95 % band spreads subsets, it does not bound the median).
    """
    out = {}
    wilson = "Wilson interval over subsets"
    for _, row in table.iterrows():
        base = SEP.join(("stability", row["corpus"], f"n{int(row['n'])}"))
        out[f"{base}{SEP}spearman_median"] = Measured(
            _num(row["spearman median"]), note="median over subsets (no interval)"
        )
        for stem, key in (("top1", "top1_share"), ("topk", f"top{int(row['top'])}_share")):
            m = Measured(
                _num(row[f"{stem} share"]), _num(row[f"{stem} low"]), _num(row[f"{stem} high"])
            )
            out[f"{base}{SEP}{key}"] = Measured(
                *(None if v is None else 100.0 * v for v in (m.value, m.low, m.high)), note=wilson
            )
    return out


def _history_k(ab: Ablation, with_history: bool) -> int:
    ks = {Condition.parse(c).history_k for c in ab.conditions}
    return max(ks) if with_history else min(ks)


def ablation_cells(ab: Ablation, table: pd.DataFrame) -> dict[str, Measured]:
    """Figures 13-15 as ``ablations/{name}/{corpus}/...`` in the paper's orientation.

    history: ``kK`` per history length (mean over all models). rate: per rate ``hzR/kK`` means,
    ``overall`` (both history conditions pooled), ``gap`` = mean without - mean with history (the
    analysis keeps with - without; the sign is flipped here), and for the non-reference rates
    ``change_in_gap`` (also its bounds as ``change_in_gap_low/high``) and ``pearson_r``.
    prompting: per variant ``base`` and ``variant`` means on matched cells and ``delta``.
    """
    out: dict[str, Measured] = {}
    if table.empty:
        return out
    name = ab.name
    if ab.kind == "history":
        for _, r in table[table["model"] == ALL_MODELS].iterrows():
            key = SEP.join(("ablations", name, r["corpus"], f"k{int(r['history_k'])}"))
            out[key] = Measured(_num(r["mean"]), _num(r["low"]), _num(r["high"]))
    elif ab.kind == "rate":
        k_without, k_with = _history_k(ab, False), _history_k(ab, True)
        for _, r in table.iterrows():
            base = SEP.join(("ablations", name, r["corpus"], f"hz{r['hz']:g}"))
            out[f"{base}{SEP}k{k_without}"] = _cell(r, "without")
            out[f"{base}{SEP}k{k_with}"] = _cell(r, "with")
            out[f"{base}{SEP}overall"] = _cell(r, "overall")
            out[f"{base}{SEP}gap"] = _negated(_cell(r, "gap"), "mean without - with history")
            if not bool(r["reference"]):
                change = _negated(_cell(r, "change"), "matched cells valid in all four conditions")
                out[f"{base}{SEP}change_in_gap"] = change
                bound = "a bound of the change's interval (itself the estimate)"
                out[f"{base}{SEP}change_in_gap_low"] = Measured(change.low, note=bound)
                out[f"{base}{SEP}change_in_gap_high"] = Measured(change.high, note=bound)
                out[f"{base}{SEP}pearson_r"] = _cell(r, "pearson r")
    elif ab.kind == "prompting":
        for _, r in table[table["model"] == ALL_MODELS].iterrows():
            base = SEP.join(("ablations", name, r["corpus"], r["variant"]))
            out[f"{base}{SEP}delta"] = Measured(_num(r["delta"]), _num(r["low"]), _num(r["high"]))
            out[f"{base}{SEP}base"] = _cell(r, "reference mean")
            out[f"{base}{SEP}variant"] = _cell(r, "variant mean")
    return out


def judge_agreement_cells(table: pd.DataFrame) -> dict[str, Measured]:
    """Table 10 rows ("human-human", "{judge}-human") -> ``agreement/{judge or human}/{stat}``
    (shares in percent), and the validation set's size from the human row."""
    out: dict[str, Measured] = {}
    note = "no interval computed"
    for _, row in table.iterrows():
        who = str(row["comparison"]).removesuffix("-human") or "human"
        if who == "human":
            val = SEP.join(("agreement", "validation"))
            out[f"{val}{SEP}videos"] = Measured(_num(row.get("videos")), note="a count")
            out[f"{val}{SEP}annotators"] = Measured(_num(row.get("raters")), note="a count")
        if "alpha" in row:
            out[SEP.join(("agreement", who, "alpha"))] = Measured(_num(row["alpha"]), note=note)
        for stat in ("within_one", "exact", "milestone_agreement"):
            if stat in row:
                v = _num(row[stat])
                out[SEP.join(("agreement", who, stat))] = Measured(
                    None if v is None else 100.0 * v, note=note
                )
    return out


def cost_cells(corpus: str, table: pd.DataFrame) -> dict[str, Measured]:
    """Cost per 1,000 scored games and mean progress of one corpus's no-history campaign
    (``table`` from :func:`playsuite.analysis.cost.cost_table` on that corpus and condition)."""
    out = {}
    note = "measured from cost records (no interval)"
    for _, row in table.iterrows():
        base = SEP.join(("cost", corpus, row["preset"]))
        out[f"{base}{SEP}gpu_hours_per_1k"] = Measured(_num(row["gpu_hours_per_1k"]), note=note)
        out[f"{base}{SEP}mean_progress"] = Measured(
            _num(row["mean_progress"]), note="mean of the valid runs (no interval)"
        )
    return out


def efficiency_cells(benchmarks: Mapping[str, pd.DataFrame | None]) -> dict[str, Measured]:
    """Figure 10 cells the benchmark TSVs hold: the mean launch overhead of the package's own
    launcher and of the fixed-wait one, and play throughput with one and eight workers.

    A launch table with a ``launcher`` column (rule efficiency_launch) has every launcher's rows:
    the package's own is ``reuse``, the naive one ``fixed``; a table without it holds the
    package's own launches only. Play throughput is per GPU-hour where the table has it, else
    per hour (one GPU: the same)."""
    out: dict[str, Measured] = {}
    launch = benchmarks.get("launch.tsv")
    if launch is not None and len(launch):
        if "status" in launch:
            launch = launch[launch["status"] != "failed"]
        groups = {"optimized_s": launch}
        if "launcher" in launch:
            groups = {
                "optimized_s": launch[launch["launcher"] == "reuse"],
                "naive_s": launch[launch["launcher"] == "fixed"],
            }
        for cell, rows in groups.items():
            if len(rows):
                out[f"efficiency/launch/{cell}"] = Measured(
                    _num(pd.to_numeric(rows["launch_s"], errors="coerce").mean()),
                    note=f"mean over {len(rows)} launches (no interval)",
                )
    play = benchmarks.get("throughput.tsv")
    if play is not None and len(play):
        col = "episodes_per_hour"
        if "evaluations_per_gpu_hour" in play and play["evaluations_per_gpu_hour"].notna().any():
            col = "evaluations_per_gpu_hour"
        for workers in (1, 8):
            rows = play[pd.to_numeric(play["workers"], errors="coerce") == workers]
            if len(rows):
                out[f"efficiency/play/workers{workers}_per_gpu_hour"] = Measured(
                    _num(pd.to_numeric(rows[col], errors="coerce").mean()),
                    note=f"{col.replace('_', ' ')} (no interval)",
                )
    return out


def curation_cells(scores: pd.DataFrame) -> dict[str, Measured]:
    """Games evaluated per corpus (with at least one valid scored run) and in total."""
    counts = valid(scores).groupby("corpus")["game"].nunique()
    note = "games with a valid scored run (a count)"
    out = {f"curation/{c}/evaluated": Measured(float(n), note=note) for c, n in counts.items()}
    out["curation/total/evaluated"] = Measured(float(counts.sum()), note=note)
    return out


#: Table 5's reasons: the catalog stages (playsuite.catalog.filters.STAGES) that apply them.
TABLE5_STAGES = (
    "construct_runtime",
    "drag_only",
    "multiplayer_only",
    "not_a_game",
    "gamepad_required",
)


def funnel_cells(funnels: Mapping[str, pd.DataFrame]) -> dict[str, Measured]:
    """The catalog funnel (``results/catalog/{corpus}/funnel.csv``, playsuite.records.funnel) of
    each corpus: ``curation/{corpus}/pool`` (games ingested), ``after_{stage}`` (games left
    after each stage) and Table 5's per-reason exclusions summed over the corpora."""
    out: dict[str, Measured] = {}
    note = "from the catalog funnel (a count)"
    excluded: dict[str, float] = {}
    for corpus, funnel in funnels.items():
        if funnel.empty:
            continue
        label = SOURCE_LABELS.get(corpus, corpus)
        left = remaining_column(label)
        left = left if left in funnel else TOTAL_REMAINING
        gone = excluded_columns(funnel)
        for _, row in funnel.iterrows():
            stage = str(row[STAGE])
            key = "pool" if stage == "ingested" else f"after_{stage}"
            out[SEP.join(("curation", corpus, key))] = Measured(_num(row[left]), note=note)
            if stage in TABLE5_STAGES:
                excluded[stage] = excluded.get(stage, 0.0) + sum(_num(row[c]) or 0.0 for c in gone)
    for stage, n in excluded.items():
        out[SEP.join(("table5", stage))] = Measured(
            n, note=f"from the catalog funnel of {', '.join(sorted(funnels))} (a count)"
        )
    return out


def harm_cells(tables: Mapping[str, pd.DataFrame]) -> dict[str, Measured]:
    """Table 4 from each catalog corpus's ``harm_categories.csv`` (playsuite.catalog.harm): the
    games a model confirmed per category; an unvalidated table (empty ``games``) gives none."""
    out: dict[str, Measured] = {}
    for corpus, table in tables.items():
        for _, row in table.iterrows():
            games = _num(row["games"])
            if games is None:
                continue
            name = "_".join(str(row["category"]).lower().split())
            out[SEP.join(("table4", corpus, name))] = Measured(
                games, note="model-confirmed tag/keyword candidates (a count)"
            )
    return out


def merge_cells(parts: Iterable[Mapping[str, Measured]]) -> dict[str, Measured]:
    out: dict[str, Measured] = {}
    for p in parts:
        out.update(p)
    return out
