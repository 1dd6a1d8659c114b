"""The analysis rules' jobs over a scores table: the paper's tables and figures, the
engine-check table, the inspection pages, the dashboard (and pictures of both) and the
reproduction report.

Like playsuite.planning.jobs, each function is what a workflow script used to do, so the script
only unpacks Snakemake's objects. They live in the workflow layer because they combine several
analysis modules with the run's settings, captions and file layout, which no single analysis
module owns. ``out`` is the rule's named outputs (``dict(snakemake.output.items())``); what a
job prints goes to standard error, which the script points at the rule's log.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

from playsuite.analysis import figures
from playsuite.analysis import reference as ref
from playsuite.analysis.ablations import ablation_scores, judge_ablation_scores, load_ablation
from playsuite.analysis.outputs import read_table, write_stat_table
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import AnalysisSettings
from playsuite.files import write_text_atomic
from playsuite.records.funnel import read_funnel
from playsuite.registry import load_registry


def models_table_job(models: str, out: Mapping[str, str]) -> None:
    """The evaluated-models table (Tables 7/8) from the model registry ``models``."""
    from playsuite.analysis.models_table import models_table
    from playsuite.analysis.tables import write_table

    write_table(
        models_table(load_registry(models)),
        out["csv"],
        out["md"],
        out["tex"],
        caption="Evaluated presets: family, size, parser and prompt template.",
    )


def main_results_job(
    scores: str, settings: AnalysisSettings, out: Mapping[str, str], runs: str | None = None
) -> None:
    """Table 2: mean progress per preset with and without history, per corpus; with ``runs``
    (the episodes' folder, when the run has one) each condition's invalid-answer rate too."""
    from playsuite.analysis.agent_settings import episode_counts
    from playsuite.analysis.main_results import (
        display_columns,
        drop_empty_rows,
        main_results,
        rate_columns,
    )

    s = settings
    df = read_scores(scores)
    counts = episode_counts(df, runs) if runs and Path(runs).is_dir() else None
    if counts is not None and counts["steps"].isna().all():
        counts = None  # scores without their episodes (analysis.scores): no rate to give
    table = drop_empty_rows(
        main_results(df, s.with_history, s.without_history, s.bootstrap, counts)
    )
    show = display_columns(table)
    write_stat_table(
        table,
        out["csv"],
        out["md"],
        out["tex"],
        show=show,
        bold=[c for c in show if c not in ("family", "preset", *rate_columns(table))],
        caption="Mean progress level (0-4) with and without history and Partial+ share (%), "
        "per corpus; best in bold. Invalid: the share of steps whose answer could not be "
        "parsed (%), where the episodes are at hand. Game-level 95% bootstrap intervals in the "
        "CSV.",
    )


def genres_job(scores: str, settings: AnalysisSettings, out: Mapping[str, str]) -> None:
    """Tables 3/11 (progress per genre) and the agreement of each genre's model ranking with
    the overall one (per genre, and its range over genres)."""
    from playsuite.analysis.genres import agreement_range, genre_rank_agreement, genre_table

    s = settings
    df = read_scores(scores)
    table = genre_table(df, s.with_history, s.without_history, s.genre_min_games, s.bootstrap)
    show = [c for c in table.columns if not c.endswith((" low", " high"))]
    write_stat_table(
        table,
        out["csv"],
        out["md"],
        out["tex"],
        show=show,
        bold=[c for c in show if c not in ("corpus", "genre", "N")],
        bold_by="corpus",
        caption=f"Progress per genre (genres with at least {s.genre_min_games} games on some "
        "corpus, each with its N on every corpus: games with a valid run), without and with "
        "history; best genre per corpus in bold.",
    )
    ranks = genre_rank_agreement(df, s.without_history, s.genre_min_games)
    write_stat_table(ranks, out["ranks_csv"], out["ranks_md"], digits=3)
    write_stat_table(
        agreement_range(ranks),
        out["range_csv"],
        out["range_md"],
        out["range_tex"],
        caption="Spearman correlation between each genre's model ranking and the overall ranking "
        "(min-max over genres).",
        digits=3,
    )


def genre_heatmap_job(
    scores: str, corpus: str, settings: AnalysisSettings, out: Mapping[str, str]
) -> None:
    """Figures 11-12: mean progress per model and genre of ``corpus`` without history, every
    genre labelled with its n; an empty table and figure when the corpus has no scores."""
    import pandas as pd

    from playsuite.analysis.genres import genre_counts, genre_model_means

    df = read_scores(scores)
    cond = settings.without_history
    present = corpus in set(df["corpus"])
    means = genre_model_means(df, corpus, cond) if present else None
    counts = genre_counts(df, corpus) if present else None
    if means is None:
        means = pd.DataFrame()
    write_text_atomic(out["csv"], means.to_csv(index_label="preset"))
    figures.save_figure(
        figures.genre_heatmap(means, f"{corpus}: mean progress by genre ({cond})", counts),
        out["pdf"],
        out["png"],
    )


def stability_job(scores: str, settings: AnalysisSettings, out: Mapping[str, str]) -> None:
    """Figure 5: how stable the leaderboard is on random game subsets of each size."""
    from playsuite.analysis.stability import stability

    st = settings.stability
    table = stability(
        read_scores(scores), settings.stability_condition, st.sizes, st.subsets, st.top, st.seed
    )
    write_stat_table(
        table,
        out["csv"],
        out["md"],
        out["tex"],
        show=["corpus", "n", "spearman median", "top1 share", "topk share"],
        caption=f"Leaderboard stability over {st.subsets} random subsets per size "
        f"({settings.stability_condition}).",
        digits=3,
    )
    figures.save_figure(figures.stability_figure(table), out["pdf"], out["png"])


def cost_job(
    scores: str,
    models: str,
    settings: AnalysisSettings,
    *,
    costs: str,
    judge_costs: str,
    engine_checks: Sequence[str],
    out: Mapping[str, str],
) -> None:
    """Figure 16: GPU-hours per 1,000 scored games against mean progress, from the cost records
    under ``costs``, in the configured campaign (analysis.cost; the engine checks' presets left
    out); the judge's own cost, from ``judge_costs``, in a second table."""
    from playsuite.analysis.cost import (
        JUDGE_COST_SHOWN,
        cost_table,
        judge_cost_table,
        read_cost_records,
    )

    s = settings
    records = read_cost_records(costs)
    print(f"{len(records)} cost records under {costs}", file=sys.stderr)
    df = read_scores(scores)
    table = cost_table(
        df,
        records,
        s.cost_condition,
        load_registry(models),
        exclude=engine_checks,
        corpus=s.cost_corpus,
    )
    campaign = f"{s.cost_condition} on {s.cost_corpus or 'all corpora'}"
    print(f"campaign: {campaign}", file=sys.stderr)
    write_stat_table(
        table,
        out["csv"],
        out["md"],
        out["tex"],
        show=["preset", "family", "params_b", "jobs", "gpu_hours_per_1k", "mean_progress"],
        caption=f"GPU-hours per 1,000 scored games (all recorded jobs, failed and killed ones "
        f"included) and mean progress, {campaign}; judging excluded.",
    )
    judge_records = read_cost_records(judge_costs)
    print(f"{len(judge_records)} judge cost records", file=sys.stderr)
    write_stat_table(
        judge_cost_table(judge_records, df),
        out["judge_csv"],
        out["judge_md"],
        show=list(JUDGE_COST_SHOWN),
    )
    figures.save_figure(figures.cost_figure(table), out["pdf"], out["png"])


def engine_checks_job(
    play: Sequence[str], judge: str, judge_manifests: Sequence[str], out: Mapping[str, str]
) -> None:
    """The engine-check table: the tiny random-weight models' play shards (``play``) and their
    judge manifests, listed apart from every paper table."""
    from playsuite.analysis.engine_checks import engine_check_markdown, engine_check_table

    table = engine_check_table(play, judge, judge_manifests)
    write_text_atomic(out["csv"], table.to_csv(index=False))
    write_text_atomic(out["md"], engine_check_markdown(table))
    print(f"{len(table)} engine-check runs -> {out['csv']}", file=sys.stderr)


def inspect_job(scores: str, runs: str, judgements: str, site: str) -> None:
    """The inspection pages of every episode in the scores table, and their filterable index,
    into the folder ``site``."""
    from playsuite.analysis.inspector import build_site

    build_site(read_scores(scores), runs, judgements, site)


def dataset_job(scores: str, runs: str, judgements: str, out: str) -> None:
    """Every episode of the scores table, with its judge's verdicts, as a Hugging Face dataset
    in the folder ``out`` (playsuite.analysis.dataset); what was left out goes to the log."""
    from playsuite.analysis.dataset import (
        ExportOptions,
        export_dataset,
        export_log,
        load_scores_sources,
    )

    judge = Path(judgements).name
    options = ExportOptions(
        title=f"PlaySuite episodes judged by {judge}",
        provenance=f"The workflow's rule `export_dataset` exported every episode of the scores "
        f"table `{scores}` (episodes under `{runs}`, judgements under `{judgements}`).",
    )
    summary = export_dataset(load_scores_sources(scores, runs, judgements), out, options)
    print(export_log(summary), file=sys.stderr)


def dashboard_job(
    judge: str,
    scores: str,
    *,
    main_table: str,
    report: str,
    figures: Sequence[str],
    inspect_dir: str,
    out: str,
) -> None:
    """The campaign's dashboard page (playsuite.analysis.dashboard) from what the analysis
    rules made for ``judge``."""
    from playsuite.analysis.dashboard import write_dashboard

    df = read_scores(scores)
    write_dashboard(
        judge,
        df,
        main_table=main_table,
        report=report,
        figures=figures,
        inspect_dir=inspect_dir,
        out=out,
    )
    print(f"{len(df)} runs, {len(figures)} figures -> {out}", file=sys.stderr)


def dashboard_from_results(
    results: str | Path, judge: str, *, scores: str | None = None, out: str | None = None
) -> Path:
    """``playsuite dashboard``: the dashboard of ``judge`` from a results tree laid out as the
    workflow lays it out (``results`` in place of ``results/``), without Snakemake. Figures are
    the PNGs that exist: Figure 10, then the judge's folder in name order."""
    from playsuite.planning import paths

    def under(path: str) -> Path:
        return Path(results) / Path(path).relative_to(paths.RESULTS)

    figures = [under(paths.figure("efficiency", "png"))]
    figures = [f for f in figures if f.is_file()]
    figures += sorted(under(paths.figure("x", "png", judge)).parent.glob("*.png"))
    scores = scores or str(under(paths.scores(judge)))
    main, report = under(paths.table("main", "md", judge)), under(paths.report(judge, "md"))
    for need in (Path(scores), main, report):
        if not need.is_file():
            raise FileNotFoundError(f"{need} does not exist (run the analysis for {judge} first)")
    target = out or str(under(paths.dashboard(judge)))
    dashboard_job(
        judge,
        scores,
        main_table=str(main),
        report=str(report),
        figures=[str(f) for f in figures],
        inspect_dir=str(under(paths.inspect_dir(judge))),
        out=target,
    )
    return Path(target)


def screenshots_job(
    scores: str, dashboard: str, inspect_dir: str, *, inspector_png: str, dashboard_png: str
) -> None:
    """Pictures of the dashboard's run browser and of one episode's inspection page (the
    best-judged one), taken in Chromium."""
    from playsuite.analysis.page_capture import (
        capture_dashboard,
        capture_inspector,
        showcase_page,
    )

    page = showcase_page(read_scores(scores), inspect_dir)
    print(f"inspection page: {page}", file=sys.stderr)
    capture_inspector(page, inspector_png)
    capture_dashboard(dashboard, dashboard_png)


def ablation_job(
    scores: str | Sequence[str],
    ablation: str,
    models: str,
    settings: AnalysisSettings,
    out: Mapping[str, str],
) -> None:
    """One ablation's table and figure into ``out["csv"]``, ``out["md"]``, ``out["pdf"]``,
    ``out["png"]``: the paper's drawing for ``kind`` history, rate or prompting (Figures 13-15),
    else the generic statistic (playsuite.analysis.axis_effects). ``scores`` is the judge's
    scores table, or for an ablation over judges one table per judge in the file's order.
    Arms the run never played (or judged) are named in the title and the log."""
    from playsuite.analysis.action_rate import action_rate
    from playsuite.analysis.axis_effects import axis_effects
    from playsuite.analysis.history import history_curves
    from playsuite.analysis.prompting import prompting_effects

    ab = load_ablation(ablation)
    tables = [scores] if isinstance(scores, str) else list(scores)
    registry = load_registry(models)
    if ab.over_judges:
        if len(tables) != len(ab.values):
            raise ValueError(f"ablation {ab.name}: {len(ab.values)} judges, {len(tables)} tables")
        judged = {j: read_scores(t) for j, t in zip(ab.values, tables, strict=True)}
        df, missing = judge_ablation_scores(judged, ab, registry)
    else:
        df, missing = ablation_scores(read_scores(tables[0]), ab, registry)
    title = ab.title + (f" (not run: {', '.join(missing)})" if missing else "")
    if missing:
        print(f"ablation {ab.name}: never run: {missing}", file=sys.stderr)
    if ab.kind == "history":
        table = history_curves(df, ab, settings.bootstrap)
        fig = figures.history_figure(table, title)
    elif ab.kind == "rate":
        table, per_model = action_rate(df, ab, settings.bootstrap)
        fig = figures.rate_figure(table, per_model, title)
    elif ab.kind == "prompting":
        table = prompting_effects(df, ab, settings.bootstrap)
        fig = figures.prompting_figure(table, title)
    else:
        table = axis_effects(df, ab, settings.bootstrap)
        fig = figures.axis_figure(table, title)
    write_stat_table(table, out["csv"], out["md"], digits=3)
    figures.save_figure(fig, out["pdf"], out["png"])


def _cost_cells(
    scores: pd.DataFrame, records: pd.DataFrame, registry: Any, without: str
) -> list[dict[str, ref.Measured]]:
    """Cost as the paper measures it: each corpus's no-history campaign alone."""
    from playsuite.analysis.cost import cost_table

    parts = []
    for corpus in sorted(scores["corpus"].unique()):
        mine = scores[(scores["corpus"] == corpus) & (scores["condition"] == without)]
        theirs = records[(records["corpus"] == corpus) & (records["condition"] == without)]
        parts.append(ref.cost_cells(corpus, cost_table(mine, theirs, without, registry)))
    return parts


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
    from playsuite.analysis.cost import read_cost_records
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

    records = read_cost_records(costs)
    records = records[~records["preset"].isin(list(engine_checks))]
    parts += _cost_cells(scores, records, load_registry(inp["models"]), settings.without_history)
    parts.append(  # a setting, set beside the paper's cut so a differing run is visible
        {
            "curation/thresholds/genre_min_games": ref.Measured(
                float(settings.genre_min_games), note="this run's analysis.genres.min_games"
            )
        }
    )
    # The catalog funnels and harm tables (Table 4) that exist (ready corpus tables: none).
    funnels = {Path(f).parent.name: read_funnel(f) for f in inp["funnels"]}
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


def tasks_job(
    scores: str,
    runs: str,
    corpora: Mapping[str, str],
    settings: AnalysisSettings,
    out: Mapping[str, str],
) -> None:
    """SR and PG on the corpora's state-verified tasks (playsuite.analysis.tasks): the task runs
    (``out["runs"]``), the SR/PG table (``tsv``, ``md``) and its figure (``pdf``, ``png``).
    ``corpora`` maps each corpus name to its table, whose rows declare the tasks."""
    from playsuite.analysis.tables import to_markdown
    from playsuite.analysis.tasks import sr_pg_table, task_runs, tasks_figure
    from playsuite.corpus import load_corpus
    from playsuite.judge.tasks import game_tasks

    tasks = {
        f"{corpus}/{game.id}": game_tasks(game)
        for corpus, table in corpora.items()
        for game in load_corpus(table)
        if game.tasks
    }
    runs_table = task_runs(read_scores(scores), runs, tasks)
    table = sr_pg_table(runs_table, settings.bootstrap)
    write_text_atomic(out["runs"], runs_table.to_csv(sep="\t", index=False))
    write_text_atomic(out["tsv"], table.to_csv(sep="\t", index=False))
    show = [c for c in table.columns if not c.endswith((" low", " high"))]
    write_text_atomic(out["md"], to_markdown(table[show]) if not table.empty else "(no data)\n")
    figures.save_figure(tasks_figure(table), out["pdf"], out["png"])
    unmeasured = int(runs_table["progress"].isna().sum())
    print(
        f"{sum(map(len, tasks.values()))} tasks on {len(tasks)} games; {len(runs_table)} task "
        f"runs ({unmeasured} unmeasured) -> {out['tsv']}",
        file=sys.stderr,
    )


def _task_runs(path: str | None) -> pd.DataFrame | None:
    """The task runs a task_tables job wrote (``None`` when there is no such file)."""
    import pandas as pd

    if not path or not Path(path).is_file():
        return None
    try:
        return pd.read_csv(path, sep="\t")
    except pd.errors.EmptyDataError:
        return None


def judge_state_job(
    scores: str, task_runs: str, settings: AnalysisSettings, out: Mapping[str, str]
) -> None:
    """Judge against state (playsuite.analysis.judge_state): the Spearman table (``tsv``,
    ``md``) and the level-by-success confusion table (``confusion_tsv``, ``confusion_md``)."""
    import pandas as pd

    from playsuite.analysis.judge_state import (
        AGREEMENT_COLUMNS,
        agreement_table,
        confusion_table,
        paired_runs,
    )
    from playsuite.analysis.tables import to_markdown

    runs = _task_runs(task_runs)
    if runs is None or runs.empty:
        paired = pd.DataFrame(columns=["judge", "corpus", "game", "level", "progress", "success"])
    else:
        paired = paired_runs(read_scores(scores), runs)
    table = agreement_table(paired, settings.bootstrap)
    confusion = confusion_table(paired)
    show = [c for c in AGREEMENT_COLUMNS if not c.endswith((" low", " high"))]
    for name, frame, cols in (("", table, show), ("confusion_", confusion, None)):
        write_text_atomic(out[f"{name}tsv"], frame.to_csv(sep="\t", index=False))
        shown = frame[cols] if cols else frame
        write_text_atomic(
            out[f"{name}md"], to_markdown(shown) if not frame.empty else "(no data)\n"
        )
    print(f"{len(paired)} task runs with a level -> {out['tsv']}", file=sys.stderr)


def agent_settings_job(
    scores: str,
    runs: str,
    task_runs: str | None,
    settings: AnalysisSettings,
    out: Mapping[str, str],
) -> None:
    """Interface and memory tables (playsuite.analysis.agent_settings): per model and condition
    input tokens and latency per step with the outcome (``memory_*``), and the text against the
    tool interface on the same model (``interfaces_*``)."""
    from playsuite.analysis.agent_settings import episode_costs, interface_table, memory_table
    from playsuite.analysis.tables import to_markdown

    tasks = _task_runs(task_runs)
    costs = episode_costs(read_scores(scores), runs)
    for name, table in (
        ("memory", memory_table(costs, tasks)),
        ("interfaces", interface_table(costs, tasks, settings.bootstrap)),
    ):
        write_text_atomic(out[f"{name}_tsv"], table.to_csv(sep="\t", index=False))
        show = [c for c in table.columns if not c.endswith((" low", " high"))]
        write_text_atomic(
            out[f"{name}_md"], to_markdown(table[show]) if not table.empty else "(no data)\n"
        )
    print(f"{len(costs)} valid episodes -> {out['memory_tsv']}", file=sys.stderr)
