"""SR and PG on the corpora's state-verified tasks (docs/analysis.md, Tasks)."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import tasks_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

tasks_job(
    snakemake.input.scores,
    snakemake.params.runs,
    dict(snakemake.params.corpora),
    analysis_settings(snakemake.config),
    dict(snakemake.output.items()),
)
