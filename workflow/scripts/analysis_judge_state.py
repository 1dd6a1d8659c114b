"""Judge against state: level vs state-verified progress and success (docs/analysis.md)."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import judge_state_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

judge_state_job(
    snakemake.input.scores,
    snakemake.input.task_runs,
    analysis_settings(snakemake.config),
    dict(snakemake.output.items()),
)
