"""Memory rounds and interfaces: tokens, latency and outcome per condition (docs/analysis.md)."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import agent_settings_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

agent_settings_job(
    snakemake.input.scores,
    snakemake.params.runs,
    snakemake.input.task_runs,
    analysis_settings(snakemake.config),
    dict(snakemake.output.items()),
)
