"""A judged campaign's episodes as a Hugging Face dataset (Parquet tables and a card)."""

import sys

from playsuite.planning.analysis_jobs import dataset_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
dataset_job(snakemake.input.scores, p.runs, p.judgements, snakemake.output[0])
