"""Reproduction report: every published number beside what this run measured.

``config/reference/paper.yaml`` holds the paper's printed numbers in nested sections whose paths
are the keys of the measured cells built here (``table2/itch/qwen3-vl-8b/k3`` ...). Shares are in
percent on both sides (the builders convert the fractions some tables keep). For every cell the
report gives published, measured, their difference, the measured 95 % interval where the package
computes one (a game bootstrap unless the cell's note says otherwise) and whether the published
value lies inside it; a published cell the run did not measure says why (:func:`why_not_measured`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from playsuite.analysis.ablations import Ablation
from playsuite.analysis.history import ALL_MODELS
from playsuite.analysis.scores import valid
from playsuite.analysis.tables import to_markdown
from playsuite.config import Condition, load_validated
from playsuite.corpus import SOURCE_LABELS

DASH = "—"
SEP = "/"
NO_INTERVAL = "no interval"


@dataclass(frozen=True)
class Measured:
    """One measured cell: value, interval bounds where computed, and a note on how it was got."""

    value: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""


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
    """The catalog funnel (``results/catalog/{corpus}/funnel.csv``, playsuite.catalog.funnel) of
    each corpus: ``curation/{corpus}/pool`` (games ingested), ``after_{stage}`` (games left
    after each stage) and Table 5's per-reason exclusions summed over the corpora."""
    out: dict[str, Measured] = {}
    note = "from the catalog funnel (a count)"
    excluded: dict[str, float] = {}
    for corpus, funnel in funnels.items():
        if funnel.empty:
            continue
        label = SOURCE_LABELS.get(corpus, corpus)
        left = f"{label} remaining" if f"{label} remaining" in funnel else "total remaining"
        gone = [c for c in funnel.columns if c.endswith(" excluded")]
        for _, row in funnel.iterrows():
            stage = str(row["stage"])
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
