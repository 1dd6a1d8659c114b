"""The validation judges' answers as rating rows (the ratings CSV's format, raters judge:NAME)."""

import sys

from playsuite.planning.validation_jobs import validation_ratings_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

validation_ratings_job(
    snakemake.input.sample,
    snakemake.params.judges,
    snakemake.input.manifests,
    snakemake.output.csv,
)
