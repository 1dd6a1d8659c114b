"""The analysis rules' jobs that gather several statistics: an ablation figure and the
reproduction report (rules ablation_figure and reproduction_report).

Like playsuite.planning.jobs, each function is what a workflow script used to do, so the script
only unpacks Snakemake's objects. They live in the workflow layer because they combine several
analysis modules with the run's settings and file layout, which no single analysis module owns.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from playsuite.analysis import figures
from playsuite.analysis import reference as ref
from playsuite.analysis.ablations import ablation_scores, load_ablation
from playsuite.analysis.outputs import read_table, write_stat_table
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import AnalysisSettings
from playsuite.files import write_text_atomic
from playsuite.registry import load_registry


def ablation_job(
    scores: str, ablation: str, models: str, settings: AnalysisSettings, out: Mapping[str, str]
) -> None:
    """One ablation's table and figure (Figures 13-15: history length, action rate or
    prompting) into ``out["csv"]``, ``out["md"]``, ``out["pdf"]``, ``out["png"]``; conditions
    the run never played are named in the title and the log."""
    from playsuite.analysis.action_rate import action_rate
    from playsuite.analysis.history import history_curves
    from playsuite.analysis.prompting import prompting_effects

    ab = load_ablation(ablation)
    df, missing = ablation_scores(read_scores(scores), ab, load_registry(models))
    title = ab.title + (f" (not run: {', '.join(missing)})" if missing else "")
    if missing:
        print(f"ablation {ab.name}: conditions never run: {missing}", file=sys.stderr)
    if ab.kind == "history":
        table = history_curves(df, ab, settings.bootstrap)
        fig = figures.history_figure(table, title)
    elif ab.kind == "rate":
        table, per_model = action_rate(df, ab, settings.bootstrap)
        fig = figures.rate_figure(table, per_model, title)
    else:
        table = prompting_effects(df, ab, settings.bootstrap)
        fig = figures.prompting_figure(table, title)
    write_stat_table(table, out["csv"], out["md"], digits=3)
    figures.save_figure(fig, out["pdf"], out["png"])


def reproduction_job(
    judge: str,
    inp: Mapping[str, Any],
    settings: AnalysisSettings,
    *,
    costs: str,
    benchmarks: str,
    engine_checks: Sequence[str],
    csv: str,
    md: str,
) -> None:
    """The reproduction report: every published number beside the measured one, with its
    interval, and why a number was not measured. ``inp`` holds the rule's inputs by name (list
    inputs may be empty: no ratings, no engine checks, no catalog funnels in this run)."""
    from playsuite.analysis.cost import cost_table, read_cost_records
    from playsuite.analysis.efficiency import read_benchmarks
    from playsuite.analysis.engine_checks import engine_check_markdown

    scores = read_scores(inp["scores"])
    parts = [
        ref.main_cells(read_table(inp["main"])),
        ref.genre_cells(read_table(inp["genres"])),
        ref.agreement_cells(read_table(inp["genre_range"])),
        ref.stability_cells(read_table(inp["stability"])),
        ref.curation_cells(scores),
    ]
    ablation_corpora = {}
    for path, table_path in zip(inp["ablation_files"], inp["ablations"], strict=True):
        ab = load_ablation(path)
        table = read_table(table_path)
        parts.append(ref.ablation_cells(ab, table))
        ablation_corpora[ab.name] = set(table["corpus"]) if "corpus" in table else set()
    judges_rated = set()
    if len(inp["agreement"]):
        agreement = read_table(inp["agreement"][0])
        parts.append(ref.judge_agreement_cells(agreement))
        judges_rated = {str(c).removesuffix("-human") for c in agreement["comparison"]}

    # Cost as the paper measures it: each corpus's no-history campaign alone.
    records = read_cost_records(costs)
    records = records[~records["preset"].isin(list(engine_checks))]
    registry = load_registry(inp["models"])
    without = settings.without_history
    for corpus in sorted(scores["corpus"].unique()):
        mine = scores[(scores["corpus"] == corpus) & (scores["condition"] == without)]
        theirs = records[(records["corpus"] == corpus) & (records["condition"] == without)]
        parts.append(ref.cost_cells(corpus, cost_table(mine, theirs, without, registry)))
    parts.append(  # a setting, set beside the paper's cut so a differing run is visible
        {
            "curation/thresholds/genre_min_games": ref.Measured(
                float(settings.genre_min_games), note="this run's analysis.genres.min_games"
            )
        }
    )
    # The catalog funnels and harm tables (Table 4) that exist (ready corpus tables: none).
    funnels = {Path(f).parent.name: read_table(f) for f in inp["funnels"]}
    parts.append(ref.funnel_cells(funnels))
    harm = {Path(f).parent.name: read_table(f) for f in inp["harm"]}
    parts.append(ref.harm_cells(harm))
    measured = read_benchmarks(benchmarks)
    parts.append(ref.efficiency_cells(measured))

    ctx = ref.RunContext(
        corpora=set(scores["corpus"]),
        presets=set(scores["preset"]),
        ablations=ablation_corpora,
        ratings=bool(len(inp["agreement"])),
        judges_rated=judges_rated,
        benchmarks={name for name, t in measured.items() if t is not None},
        cost_records=not records.empty,
        genre_min_games=settings.genre_min_games,
        funnels=set(funnels),
        harm=set(harm),
    )
    published = ref.load_reference(inp["reference"][0]) if len(inp["reference"]) else {}
    table = ref.reproduction_table(
        published, ref.merge_cells(parts), lambda key: ref.why_not_measured(key, ctx)
    )
    write_text_atomic(csv, table.to_csv(index=False))
    text = ref.reproduction_markdown(table, f"Reproduction report ({judge} judge)")
    if len(inp["engine_checks"]):  # configured engine checks: their own section, last
        text += "\n" + engine_check_markdown(read_table(inp["engine_checks"][0]), heading="##")
    write_text_atomic(md, text)
