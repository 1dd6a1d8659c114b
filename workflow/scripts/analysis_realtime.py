"""Latency against progress under the real-time protocol (docs/analysis.md)."""

import sys

from playsuite.planning.realtime_jobs import realtime_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

realtime_job(
    snakemake.input.task_runs,
    snakemake.input.tasks,
    snakemake.params.runs,
    dict(snakemake.output.items()),
)
