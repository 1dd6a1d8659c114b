"""Offline accuracy against online progress, Spearman (rule correlate_horizon_progress)."""

import sys

from playsuite.planning.horizon_jobs import correlation_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

inp = snakemake.input
correlation_job(inp.accuracy, inp.scores, dict(snakemake.output.items()))
