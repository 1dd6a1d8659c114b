"""The engine-check table: tiny random-weight models played and judged, apart from the paper."""

import sys

from playsuite.planning.analysis_jobs import engine_checks_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

engine_checks_job(
    snakemake.input.play,
    snakemake.params.judge,
    snakemake.input.judge,
    dict(snakemake.output.items()),
)
