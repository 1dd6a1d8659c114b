"""Table 2: main results per preset from a scores table (invalid rates from the episodes)."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import main_results_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

main_results_job(
    snakemake.input.scores,
    analysis_settings(snakemake.config),
    dict(snakemake.output.items()),
    runs=snakemake.params.runs,
)
