"""Draw the judge-validation set (Table 10) from the played shards; blind it for raters."""

import sys

from playsuite.planning.validation_jobs import validation_sample_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
validation_sample_job(
    snakemake.input.manifests, p.per_corpus, p.seed, dict(snakemake.output.items())
)
