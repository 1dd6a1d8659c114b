"""Inspection pages of every episode in a scores table, and the filterable index."""

import sys

from playsuite.planning.analysis_jobs import inspect_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
inspect_job(snakemake.input.scores, p.runs, p.judgements, snakemake.output[0])
