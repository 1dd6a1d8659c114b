# Analysis: the paper's tables and figures from scores tables.


rule tabulate_models:
    input:
        config["models"],
    output:
        csv=report(
            "results/tables/models.csv",
            caption="../report/models.rst",
            category="Models",
        ),
        md="results/tables/models.md",
        tex="results/tables/models.tex",
    log:
        "results/logs/tabulate_models.log",
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/tabulate_models.py"


# --- statistics over scores tables (docs/analysis.md) -------------------------------------------

from playsuite.analysis.ablations import load_ablation

ANALYSIS = PLAN.analysis
ABLATIONS = {load_ablation(path).name: path for path in ANALYSIS.ablations}


rule main_results:
    input:
        scores=scores_table,
    output:
        csv=report(
            "results/tables/{judge}/main.csv",
            caption="../report/main.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        md="results/tables/{judge}/main.md",
        tex="results/tables/{judge}/main.tex",
    log:
        "results/logs/analysis/{judge}/main.log",
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_main.py"


rule genre_tables:
    input:
        scores=scores_table,
    output:
        csv=report(
            "results/tables/{judge}/genres.csv",
            caption="../report/genres.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        md="results/tables/{judge}/genres.md",
        tex="results/tables/{judge}/genres.tex",
        ranks_csv=report(
            "results/tables/{judge}/genre_rank_agreement.csv",
            caption="../report/genre_rank_agreement.rst",
            category="Tables",
            subcategory="{judge}",
        ),
        ranks_md="results/tables/{judge}/genre_rank_agreement.md",
        range_csv="results/tables/{judge}/genre_rank_range.csv",
        range_md="results/tables/{judge}/genre_rank_range.md",
        range_tex="results/tables/{judge}/genre_rank_range.tex",
    log:
        "results/logs/analysis/{judge}/genres.log",
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
        csv="results/tables/{judge}/genre_by_model_{corpus}.csv",
        pdf="results/figures/{judge}/genre_heatmap_{corpus}.pdf",
        png=report(
            "results/figures/{judge}/genre_heatmap_{corpus}.png",
            caption="../report/genre_heatmap.rst",
            category="Figures",
            subcategory="{judge}",
        ),
    log:
        "results/logs/analysis/{judge}/genre_heatmap_{corpus}.log",
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/analysis_genre_heatmap.py"


rule ablation_figure:
    input:
        scores=scores_table,
        ablation=lambda wildcards: ABLATIONS[wildcards.ablation],
        models=config["models"],
    output:
        csv="results/tables/{judge}/ablation_{ablation}.csv",
        md="results/tables/{judge}/ablation_{ablation}.md",
        pdf="results/figures/{judge}/ablation_{ablation}.pdf",
        png=report(
            "results/figures/{judge}/ablation_{ablation}.png",
            caption="../report/ablation.rst",
            category="Figures",
            subcategory="{judge}",
        ),
    log:
        "results/logs/analysis/{judge}/ablation_{ablation}.log",
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
        csv="results/tables/{judge}/stability.csv",
        md="results/tables/{judge}/stability.md",
        tex="results/tables/{judge}/stability.tex",
        pdf="results/figures/{judge}/stability.pdf",
        png=report(
            "results/figures/{judge}/stability.png",
            caption="../report/stability.rst",
            category="Figures",
            subcategory="{judge}",
        ),
    log:
        "results/logs/analysis/{judge}/stability.log",
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
        csv="results/tables/{judge}/cost.csv",
        md="results/tables/{judge}/cost.md",
        tex="results/tables/{judge}/cost.tex",
        judge_csv="results/tables/{judge}/judge_cost.csv",
        judge_md="results/tables/{judge}/judge_cost.md",
        pdf="results/figures/{judge}/cost.pdf",
        png=report(
            "results/figures/{judge}/cost.png",
            caption="../report/cost.rst",
            category="Figures",
            subcategory="{judge}",
        ),
    log:
        "results/logs/analysis/{judge}/cost.log",
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        costs=ANALYSIS.costs,
        judge_costs=lambda wildcards: f"{ANALYSIS.judge_costs}/{wildcards.judge}",
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
EFFICIENCY_RUNS = "results/efficiency/concurrency"


if EFFICIENCY.launch:

    rule efficiency_launch:
        input:
            catalog=lambda wc: config["corpora"][EFFICIENCY.corpus]["table"],
            acquired=[f"results/games/{g}/acquired.json" for g in EFFICIENCY_GAMES],
        output:
            f"{ANALYSIS.benchmarks}/launch.tsv",
        log:
            "results/logs/analysis/efficiency_launch.log",
        conda:
            "../envs/playsuite.yaml"
        params:
            games=EFFICIENCY_GAMES,
            games_dir="results/games",
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
            acquired=[f"results/games/{g}/acquired.json" for g in EFFICIENCY_GAMES],
            model=tiny_model(REGISTRY.preset(CONCURRENCY.preset)),
        output:
            manifest=f"{EFFICIENCY_RUNS}/w{{workers}}/manifest.tsv",
        log:
            "results/logs/analysis/efficiency_concurrency/w{workers}.log",
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
            run_dir=lambda wc: f"{EFFICIENCY_RUNS}/w{wc.workers}",
        shell:
            "{params.playsuite} play-shard --corpus {params.corpus} --catalog {input.catalog}"
            " --preset {params.preset} --condition {params.condition}"
            " --shard s0000 --games {params.games} --workers {wildcards.workers}"
            " {params.steps} --wall-timeout {params.wall_timeout} --seed {params.seed}"
            " --models {params.models}{params.server_argv}{params.sandbox}"
            " --vllm {params.vllm}"
            " --runs-dir {params.run_dir}/runs"
            " --games-dir results/games --manifest {output.manifest}"
            " --log-dir results/logs/analysis/efficiency_concurrency/w{wildcards.workers}"
            " --costs {params.run_dir}/costs/s0000.tsv"
            " > {log} 2>&1"

    rule efficiency_concurrency:
        input:
            manifests=[
                f"{EFFICIENCY_RUNS}/w{w}/manifest.tsv" for w in CONCURRENCY.workers
            ],
        output:
            f"{ANALYSIS.benchmarks}/throughput.tsv",
        log:
            "results/logs/analysis/efficiency_concurrency.log",
        conda:
            "../envs/playsuite.yaml"
        container:
            PLAYSUITE_IMAGE
        params:
            workers=list(CONCURRENCY.workers),
            costs=[f"{EFFICIENCY_RUNS}/w{w}/costs" for w in CONCURRENCY.workers],
        script:
            "../workflow/scripts/analysis_concurrency.py"


if EFFICIENCY.judge:

    rule efficiency_judge:
        input:
            manifests=JUDGE_PLAN.manifests(SimpleNamespace(judge=EFFICIENCY.judge)),
        output:
            f"{ANALYSIS.benchmarks}/judge.tsv",
        log:
            "results/logs/analysis/efficiency_judge.log",
        conda:
            "../envs/playsuite.yaml"
        container:
            PLAYSUITE_IMAGE
        params:
            costs=f"{ANALYSIS.judge_costs}/{EFFICIENCY.judge}",
        script:
            "../workflow/scripts/analysis_judge_throughput.py"


rule efficiency:
    input:
        lambda wildcards: sorted(
            {f"{ANALYSIS.benchmarks}/{name}" for name in EFFICIENCY_INPUTS}
            | {str(p) for p in Path(ANALYSIS.benchmarks).glob("*.tsv") if p.is_file()}
        ),
    output:
        pdf="results/figures/efficiency.pdf",
        png=report(
            "results/figures/efficiency.png",
            caption="../report/efficiency.rst",
            category="Figures",
        ),
    log:
        "results/logs/analysis/efficiency.log",
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
        main="results/tables/{judge}/main.csv",
        genres="results/tables/{judge}/genres.csv",
        genre_range="results/tables/{judge}/genre_rank_range.csv",
        stability="results/tables/{judge}/stability.csv",
        ablations=lambda wildcards: [
            f"results/tables/{wildcards.judge}/ablation_{name}.csv"
            for name in ABLATIONS
        ],
        ablation_files=list(ABLATIONS.values()),
        reference=[ANALYSIS.reference] if ANALYSIS.reference else [],
        agreement=["results/tables/agreement.csv"] if ANALYSIS.ratings else [],
        engine_checks=(
            ["results/tables/engine_checks.csv"]
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
            "results/catalog",
            "*/funnel.csv",
        ),
        harm=lambda wildcards: planned_or_present(
            catalog_files("harm_categories.csv"),
            "results/catalog",
            "*/harm_categories.csv",
        ),
    output:
        csv="results/report/{judge}/reproduction.csv",
        md=report(
            "results/report/{judge}/reproduction.md",
            caption="../report/reproduction.rst",
            category="Reproduction",
            subcategory="{judge}",
        ),
    log:
        "results/logs/analysis/{judge}/reproduction.log",
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
            "results/tables/engine_checks.csv",
            caption="../report/engine_checks.rst",
            category="Engine checks",
        ),
        md="results/tables/engine_checks.md",
    log:
        "results/logs/analysis/engine_checks.log",
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
        judges=["results/validation/judge_ratings.csv"] if VALIDATION else [],
    output:
        csv=report(
            "results/tables/agreement.csv",
            caption="../report/agreement.rst",
            category="Tables",
        ),
        md="results/tables/agreement.md",
        tex="results/tables/agreement.tex",
    log:
        "results/logs/analysis/agreement.log",
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
        directory("results/inspect/{judge}"),
    log:
        "results/logs/analysis/{judge}/inspect.log",
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        runs="results/runs",
        judgements=lambda wildcards: f"results/judgements/{wildcards.judge}",
    script:
        "../workflow/scripts/analysis_inspect.py"


rule analysis_figures:
    input:
        analysis_figure_targets(),
