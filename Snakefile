# PlaySuite: foundation models play real games; a video judge scores their progress.
# Entry point: validates the configuration, includes the rule families, defines the default target.


import os

from snakemake.utils import min_version, validate

from playsuite.config import drop_removed_corpora, validate as check_config

min_version("9.0")


configfile: "config/config.yaml"


# envs/playsuite.yaml installs the package from ${PLAYSUITE_SOURCE}: an absolute path, since
# Snakemake copies env files into .snakemake/conda/ where a relative one would point elsewhere.
os.environ.update(PLAYSUITE_SOURCE=workflow.basedir)


# playsuite's check first: one line per error, with spelling hints for unknown keys. A corpus set
# to null in a --configfile is then removed (merging can only add or change keys), before
# Snakemake's check fills the schema's defaults into the config (it cannot fill a null corpus).
check_config(config, "config", source="the workflow configuration")
drop_removed_corpora(config)
validate(config, "config/schemas/config.schema.json")


include: "rules/common.smk"
include: "rules/catalog.smk"
include: "rules/survey.smk"
include: "rules/play.smk"
include: "rules/judge.smk"
include: "rules/validation.smk"
include: "rules/analysis.smk"
include: "rules/horizon.smk"


# On a cluster these run on the submit host, not as sbatch jobs (docs/cluster.md): acquisition
# needs the network, which compute nodes often lack; tables, figures and reports take seconds.
# At the paper's scale this spares one sbatch job per game and one per table.
localrules:
    all,
    acquire_game,
    judge_scores,
    tabulate_models,
    main_results,
    genre_tables,
    genre_heatmap,
    ablation_figure,
    stability,
    cost_performance,
    efficiency,
    reproduction_report,
    engine_checks_table,
    judge_agreement,
    inspection_pages,
    dashboard,
    task_tables,
    realtime_table,
    judge_state_agreement,
    agent_settings_tables,
    screenshot_pages,
    analysis_figures,
    catalog_table,
    conformance_table,
    horizon,
    build_horizon_questions,
    tabulate_horizon_accuracy,
    correlate_horizon_progress,


rule all:
    default_target: True
    input:
        final_outputs(),
