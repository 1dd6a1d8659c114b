# Analysis: the paper's tables and figures from scores tables.


rule tabulate_models:
    input:
        config["models"],
    output:
        csv=report(
            paths.table("models", "csv"),
            caption="../report/models.rst",
            category="Models",
        ),
        md=paths.table("models", "md"),
        tex=paths.table("models", "tex"),
    log:
        paths.log("tabulate_models"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/tabulate_models.py"


# --- statistics over scores tables (docs/analysis.md) -------------------------------------------

from playsuite.analysis.ablations import load_ablation

ANALYSIS = PLAN.analysis
# Every ablation file, loaded (and so checked) once when the workflow is parsed.
ABLATION_DEFS = {ab.name: ab for ab in map(load_ablation, ANALYSIS.ablations)}
ABLATIONS = {name: path for name, path in zip(ABLATION_DEFS, ANALYSIS.ablations)}
# The reproduction report reads the ablations of played conditions; an ablation over judges is
# drawn once, in the folder of its reference judge (ablation_judges in common.smk).
PLAYED_ABLATIONS = [n for n, ab in ABLATION_DEFS.items() if not ab.over_judges]


rule main_results:
    input:
        scores=scores_table,
    output:
        csv=report(
            paths.table("main", "csv", "{judge}"),
            caption="../report/main.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        md=paths.table("main", "md", "{judge}"),
        tex=paths.table("main", "tex", "{judge}"),
    log:
        paths.log("analysis", "{judge}", "main"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        runs=paths.RUNS,  # invalid-answer rates, read from meta.json where episodes exist
    script:
        "../workflow/scripts/analysis_main.py"


rule genre_tables:
    input:
        scores=scores_table,
    output:
        csv=report(
            paths.table("genres", "csv", "{judge}"),
            caption="../report/genres.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        md=paths.table("genres", "md", "{judge}"),
        tex=paths.table("genres", "tex", "{judge}"),
        ranks_csv=report(
            paths.table("genre_rank_agreement", "csv", "{judge}"),
            caption="../report/genre_rank_agreement.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        ranks_md=paths.table("genre_rank_agreement", "md", "{judge}"),
        range_csv=paths.table("genre_rank_range", "csv", "{judge}"),
        range_md=paths.table("genre_rank_range", "md", "{judge}"),
        range_tex=paths.table("genre_rank_range", "tex", "{judge}"),
    log:
        paths.log("analysis", "{judge}", "genres"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_genres.py"


rule genre_heatmap:
    input:
        scores=scores_table,
    output:
        csv=paths.table("genre_by_model_{corpus}", "csv", "{judge}"),
        pdf=paths.figure("genre_heatmap_{corpus}", "pdf", "{judge}"),
        png=report(
            paths.figure("genre_heatmap_{corpus}", "png", "{judge}"),
            caption="../report/genre_heatmap.rst",
            category="Figures",
            subcategory="{judge}",
        ),
    log:
        paths.log("analysis", "{judge}", "genre_heatmap_{corpus}"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_genre_heatmap.py"


# State-verified tasks (GameWorld's SR and PG): the judge's valid episodes, their traces' probe
# values and the tasks the corpus tables declare. Not in `all`: it reads every episode's trace,
# which a run given only scores tables (analysis.scores) does not have.
rule task_tables:
    input:
        scores=scores_table,
        corpora=[spec["table"] for spec in config["corpora"].values()],
    output:
        runs=paths.table("task_runs", "tsv", "{judge}"),
        tsv=report(
            paths.table("tasks", "tsv", "{judge}"),
            caption="../report/tasks.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        md=paths.table("tasks", "md", "{judge}"),
        pdf=paths.figure("tasks", "pdf", "{judge}"),
        png=report(
            paths.figure("tasks", "png", "{judge}"),
            caption="../report/tasks.rst",
            category="Figures",
            subcategory="{judge}",
        ),
    log:
        paths.log("analysis", "{judge}", "tasks"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        runs=paths.RUNS,
        corpora={name: spec["table"] for name, spec in config["corpora"].items()},
    script:
        "../workflow/scripts/analysis_tasks.py"


# Real time (GameWorld-RT): each model's thinking time beside its state-verified progress under
# the real-time conditions, and the paused condition's progress where the run played it
# (playsuite.analysis.realtime). Not in `all`, like task_tables whose tables it reads.
rule realtime_table:
    input:
        task_runs=paths.table("task_runs", "tsv", "{judge}"),
        tasks=paths.table("tasks", "tsv", "{judge}"),
    output:
        tsv=report(
            paths.table("realtime", "tsv", "{judge}"),
            caption="../report/realtime.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        md=paths.table("realtime", "md", "{judge}"),
    log:
        paths.log("analysis", "{judge}", "realtime"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        runs=paths.RUNS,
    script:
        "../workflow/scripts/analysis_realtime.py"


# Judge against state: the judge's level beside the state-verified progress and success of the
# same episodes (Spearman with game-bootstrap intervals; level x success confusion).
rule judge_state_agreement:
    input:
        scores=scores_table,
        task_runs=paths.table("task_runs", "tsv", "{judge}"),
    output:
        tsv=report(
            paths.table("judge_state", "tsv", "{judge}"),
            caption="../report/judge_state.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        md=paths.table("judge_state", "md", "{judge}"),
        confusion_tsv=paths.table("judge_state_confusion", "tsv", "{judge}"),
        confusion_md=paths.table("judge_state_confusion", "md", "{judge}"),
    log:
        paths.log("analysis", "{judge}", "judge_state"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_judge_state.py"


# Agent settings: input tokens and latency per step by memory rounds, text against tool
# interface on the same model; reads every episode's trace (not in `all`, like task_tables).
rule agent_settings_tables:
    input:
        scores=scores_table,
        task_runs=paths.table("task_runs", "tsv", "{judge}"),
    output:
        memory_tsv=report(
            paths.table("memory", "tsv", "{judge}"),
            caption="../report/agent_settings.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        memory_md=paths.table("memory", "md", "{judge}"),
        interfaces_tsv=report(
            paths.table("interfaces", "tsv", "{judge}"),
            caption="../report/agent_settings.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        interfaces_md=paths.table("interfaces", "md", "{judge}"),
    log:
        paths.log("analysis", "{judge}", "agent_settings"),
    benchmark:
        paths.benchmark("analysis", "{judge}", "agent_settings")
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        runs=paths.RUNS,
    script:
        "../workflow/scripts/analysis_agent_settings.py"


# Any ablation: the paper's drawing (kind history, rate, prompting) or the generic statistic.
rule ablation_figure:
    input:
        scores=ablation_scores_tables,
        ablation=lambda wildcards: ABLATIONS[wildcards.ablation],
        models=config["models"],
    output:
        csv=paths.table("ablation_{ablation}", "csv", "{judge}"),
        md=paths.table("ablation_{ablation}", "md", "{judge}"),
        pdf=paths.figure("ablation_{ablation}", "pdf", "{judge}"),
        png=report(
            paths.figure("ablation_{ablation}", "png", "{judge}"),
            caption="../report/ablation.rst",
            category="Figures",
            subcategory="{judge}",
        ),
    log:
        paths.log("analysis", "{judge}", "ablation_{ablation}"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_ablation.py"


rule stability:
    input:
        scores=scores_table,
    output:
        csv=paths.table("stability", "csv", "{judge}"),
        md=paths.table("stability", "md", "{judge}"),
        tex=paths.table("stability", "tex", "{judge}"),
        pdf=paths.figure("stability", "pdf", "{judge}"),
        png=report(
            paths.figure("stability", "png", "{judge}"),
            caption="../report/stability.rst",
            category="Figures",
            subcategory="{judge}",
        ),
    log:
        paths.log("analysis", "{judge}", "stability"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_stability.py"


# Cost records are written by the play jobs that the scores table already depends on, so they
# are complete when the scores table is; the script reads the folder (docs/analysis.md), leaving
# out the records of the engine checks' play jobs.
rule cost_performance:
    input:
        scores=scores_table,
        models=config["models"],
    output:
        csv=paths.table("cost", "csv", "{judge}"),
        md=paths.table("cost", "md", "{judge}"),
        tex=paths.table("cost", "tex", "{judge}"),
        judge_csv=paths.table("judge_cost", "csv", "{judge}"),
        judge_md=paths.table("judge_cost", "md", "{judge}"),
        pdf=paths.figure("cost", "pdf", "{judge}"),
        png=report(
            paths.figure("cost", "png", "{judge}"),
            caption="../report/cost.rst",
            category="Figures",
            subcategory="{judge}",
        ),
    log:
        paths.log("analysis", "{judge}", "cost"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        costs=ANALYSIS.costs,
        judge_costs=lambda wildcards: paths.judge_costs_dir(
            ANALYSIS.judge_costs, wildcards.judge
        ),
        engine_checks=list(ENGINE_CHECKS.presets),  # their cost records are not the paper's
    script:
        "../workflow/scripts/analysis_cost.py"


# --- Figure 10's inputs (docs/analysis.md "Benchmark outputs"); analysis.efficiency says which
# measurements the workflow makes. Launch and concurrency start real games (off by default).

from types import SimpleNamespace

from playsuite.analysis.efficiency import EfficiencySettings
from playsuite.runtimes.launchtest import sample_games

EFFICIENCY = EfficiencySettings.from_config(config)
EFFICIENCY_GAMES = (
    [
        g.id
        for g in sample_games(
            corpus_games(config, EFFICIENCY.corpus), EFFICIENCY.games, EFFICIENCY.seed
        )
    ]
    if EFFICIENCY.needs_games()
    else []
)
EFFICIENCY_INPUTS = (
    (["launch.tsv"] if EFFICIENCY.launch else [])
    + (["throughput.tsv"] if EFFICIENCY.concurrency else [])
    + (["judge.tsv"] if EFFICIENCY.judge else [])
)


if EFFICIENCY.launch:

    rule efficiency_launch:
        input:
            catalog=lambda wc: config["corpora"][EFFICIENCY.corpus]["table"],
            acquired=[paths.acquired(g) for g in EFFICIENCY_GAMES],
        output:
            f"{ANALYSIS.benchmarks}/launch.tsv",
        log:
            paths.log("analysis", "efficiency_launch"),
        conda:
            "../envs/playsuite.yaml"
        params:
            games=EFFICIENCY_GAMES,
            games_dir=paths.GAMES_DIR,
            fixed_wait_s=EFFICIENCY.fixed_wait_s,
        script:
            "../workflow/scripts/analysis_launch_test.py"


if EFFICIENCY.concurrency:
    CONCURRENCY = EFFICIENCY.concurrency

    # The same games played with W workers sharing one model server, one job per W (a play
    # shard of its own, outside the campaign's results and cost records).
    rule efficiency_concurrency_run:
        input:
            catalog=lambda wc: config["corpora"][EFFICIENCY.corpus]["table"],
            acquired=[paths.acquired(g) for g in EFFICIENCY_GAMES],
            model=tiny_model(REGISTRY.preset(CONCURRENCY.preset)),
        output:
            manifest=paths.EFFICIENCY_MANIFEST,
        log:
            paths.log("analysis", "efficiency_concurrency", "w{workers}"),
        wildcard_constraints:
            workers="[0-9]+",
        threads: max(CONCURRENCY.workers)
        resources:
            gpu=REGISTRY.preset(CONCURRENCY.preset).gpus,
            cpus_per_task=lambda wc: int(wc.workers),
            mem_mb=lambda wc: PLAN.preset_resource(
                CONCURRENCY.preset, "mem_mb", 4000 * int(wc.workers)
            ),
            # every game once, W at a time: allow ~10 minutes per game and worker slot
            runtime=lambda wc: max(
                PLAN.preset_resource(CONCURRENCY.preset, "runtime", 120),
                30 + 10 * -(-len(EFFICIENCY_GAMES) // int(wc.workers)),
            ),
        params:
            games=",".join(EFFICIENCY_GAMES),
            steps=(
                f"--steps {CONCURRENCY.steps or PLAY['steps']}"
                if (CONCURRENCY.steps or PLAY["steps"]) is not None
                else ""
            ),
            wall_timeout=PLAY["wall_timeout_s"],
            seed=config.get("seed", 0),
            models=config["models"],
            server_argv=_server_argv_option(config, CONCURRENCY.preset),
            sandbox=sandbox_option(config),
            vllm=ENGINE_VLLM,
            playsuite=PLAYSUITE,
            preset=CONCURRENCY.preset,
            condition=CONCURRENCY.condition,
            corpus=EFFICIENCY.corpus,
            runs_dir=paths.EFFICIENCY_RUNS,
            costs=paths.EFFICIENCY_COSTS,
            games_dir=paths.GAMES_DIR,
            log_dir=paths.log_dir("analysis", "efficiency_concurrency", "w{workers}"),
        shell:
            "{params.playsuite} play-shard --corpus {params.corpus} --catalog {input.catalog}"
            " --preset {params.preset} --condition {params.condition}"
            " --shard s0000 --games {params.games} --workers {wildcards.workers}"
            " {params.steps} --wall-timeout {params.wall_timeout} --seed {params.seed}"
            " --models {params.models}{params.server_argv}{params.sandbox}"
            " --vllm {params.vllm}"
            " --runs-dir {params.runs_dir}"
            " --games-dir {params.games_dir} --manifest {output.manifest}"
            " --log-dir {params.log_dir}"
            " --costs {params.costs}/s0000.tsv"
            " > {log} 2>&1"

    rule efficiency_concurrency:
        input:
            manifests=[paths.efficiency_manifest(w) for w in CONCURRENCY.workers],
        output:
            f"{ANALYSIS.benchmarks}/throughput.tsv",
        log:
            paths.log("analysis", "efficiency_concurrency"),
        conda:
            "../envs/playsuite.yaml"
        container:
            PLAYSUITE_IMAGE
        params:
            workers=list(CONCURRENCY.workers),
            costs=[paths.efficiency_costs(w) for w in CONCURRENCY.workers],
        script:
            "../workflow/scripts/analysis_concurrency.py"


if EFFICIENCY.judge:

    rule efficiency_judge:
        input:
            manifests=JUDGE_PLAN.manifests(SimpleNamespace(judge=EFFICIENCY.judge)),
        output:
            f"{ANALYSIS.benchmarks}/judge.tsv",
        log:
            paths.log("analysis", "efficiency_judge"),
        conda:
            "../envs/playsuite.yaml"
        container:
            PLAYSUITE_IMAGE
        params:
            costs=paths.judge_costs_dir(ANALYSIS.judge_costs, EFFICIENCY.judge),
        script:
            "../workflow/scripts/analysis_judge_throughput.py"


rule efficiency:
    input:
        lambda wildcards: sorted(
            {f"{ANALYSIS.benchmarks}/{name}" for name in EFFICIENCY_INPUTS}
            | {str(p) for p in Path(ANALYSIS.benchmarks).glob("*.tsv") if p.is_file()}
        ),
    output:
        pdf=paths.figure("efficiency", "pdf"),
        png=report(
            paths.figure("efficiency", "png"),
            caption="../report/efficiency.rst",
            category="Figures",
        ),
    log:
        paths.log("analysis", "efficiency"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        benchmarks=ANALYSIS.benchmarks,
    script:
        "../workflow/scripts/analysis_efficiency.py"


# The report also reads the cost records (the no-history campaign of each corpus, as the paper's
# cost), the benchmark TSVs (efficiency) and the catalog funnels (curation, Table 5) when they
# exist; what is missing is named in the report.
rule reproduction_report:
    input:
        scores=scores_table,
        models=config["models"],
        main=paths.table("main", "csv", "{judge}"),
        genres=paths.table("genres", "csv", "{judge}"),
        genre_range=paths.table("genre_rank_range", "csv", "{judge}"),
        stability=paths.table("stability", "csv", "{judge}"),
        ablations=lambda wildcards: [
            paths.table(f"ablation_{name}", "csv", wildcards.judge)
            for name in PLAYED_ABLATIONS
        ],
        ablation_files=[ABLATIONS[name] for name in PLAYED_ABLATIONS],
        reference=[ANALYSIS.reference] if ANALYSIS.reference else [],
        agreement=[paths.table("agreement", "csv")] if ANALYSIS.ratings else [],
        engine_checks=(
            [paths.table("engine_checks", "csv")]
            if ENGINE_CHECKS and not SCORES_GIVEN
            else []
        ),
        benchmarks=lambda wildcards: planned_or_present(
            [f"{ANALYSIS.benchmarks}/{name}" for name in EFFICIENCY_INPUTS],
            ANALYSIS.benchmarks,
            "*.tsv",
        ),
        funnels=lambda wildcards: planned_or_present(
            catalog_files("funnel.csv"),
            paths.CATALOG,
            "*/funnel.csv",
        ),
        harm=lambda wildcards: planned_or_present(
            catalog_files("harm_categories.csv"),
            paths.CATALOG,
            "*/harm_categories.csv",
        ),
    output:
        csv=paths.report("{judge}", "csv"),
        md=report(
            paths.report("{judge}", "md"),
            caption="../report/reproduction.rst",
            category="Reproduction",
            subcategory="{judge}",
        ),
    log:
        paths.log("analysis", "{judge}", "reproduction"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        costs=ANALYSIS.costs,
        engine_checks=list(ENGINE_CHECKS.presets),
        benchmarks=ANALYSIS.benchmarks,
    script:
        "../workflow/scripts/analysis_reproduction.py"


# Engine checks (engine.checks): tiny random-weight models played and judged through the real
# engine, tabulated apart from every paper table (docs/analysis.md). Reads the check shards'
# manifests (and their episodes' meta.json); no scores table holds these runs.
rule engine_checks_table:
    input:
        play=engine_check_play_targets(),
        judge=JUDGE_PLAN.check_manifests(),
    output:
        csv=report(
            paths.table("engine_checks", "csv"),
            caption="../report/engine_checks.rst",
            category="Engine checks",
        ),
        md=paths.table("engine_checks", "md"),
    log:
        paths.log("analysis", "engine_checks"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        judge=ENGINE_CHECKS.judge,
    script:
        "../workflow/scripts/analysis_engine_checks.py"


rule judge_agreement:
    input:
        ratings=[ANALYSIS.ratings] if ANALYSIS.ratings else [],
        judges=[paths.VALIDATION_RATINGS] if VALIDATION else [],
    output:
        csv=report(
            paths.table("agreement", "csv"),
            caption="../report/agreement.rst",
            category="Tables",
        ),
        md=paths.table("agreement", "md"),
        tex=paths.table("agreement", "tex"),
    log:
        paths.log("analysis", "agreement"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_agreement.py"


rule inspection_pages:
    input:
        scores=scores_table,
    output:
        directory(paths.inspect_dir("{judge}")),
    log:
        paths.log("analysis", "{judge}", "inspect"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        runs=paths.RUNS,
        judgements=lambda wildcards: paths.judgements(wildcards.judge),
    script:
        "../workflow/scripts/analysis_inspect.py"


# A judged campaign's episodes as a Hugging Face dataset (docs/analysis.md, "Dataset export"):
# results/datasets/{judge}/ with frames/, steps/, episodes/ Parquet files and README.md. Not in
# `all`: it decodes every episode's video and stores its frames (a campaign's worth of images).
rule export_dataset:
    input:
        scores=scores_table,
    output:
        directory(paths.dataset_dir("{judge}")),
    log:
        paths.log("analysis", "{judge}", "dataset"),
    benchmark:
        paths.benchmark("analysis", "{judge}", "dataset")
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        runs=paths.RUNS,
        judgements=lambda wildcards: paths.judgements(wildcards.judge),
    script:
        "../workflow/scripts/export_dataset.py"


# The campaign at a glance (docs/analysis.md "Dashboard"): main table, every figure, the
# reproduction report and a run browser linking each episode's inspection page.
rule dashboard:
    input:
        scores=scores_table,
        main=paths.table("main", "md", "{judge}"),
        report=paths.report("{judge}", "md"),
        figures=dashboard_figures,
        inspect=paths.inspect_dir("{judge}"),
    output:
        paths.dashboard("{judge}"),
    log:
        paths.log("analysis", "{judge}", "dashboard"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_dashboard.py"


# Pictures of the dashboard's run browser and of the best-judged episode's inspection page,
# taken in Chromium: the README's (scripts/readme_images.py). Not in `all`.
rule screenshot_pages:
    input:
        scores=scores_table,
        dashboard=paths.dashboard("{judge}"),
        inspect=paths.inspect_dir("{judge}"),
    output:
        inspector=paths.dashboard("{judge}", "inspector.png"),
        dashboard=paths.dashboard("{judge}", "dashboard.png"),
    log:
        paths.log("analysis", "{judge}", "screenshots"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_screenshots.py"


rule analysis_figures:
    input:
        analysis_figure_targets(),
