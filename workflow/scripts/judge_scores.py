"""Collect a judge's shard manifests into the scores table results/scores/{judge}.tsv."""

import sys

from playsuite.planning.jobs import judge_scores_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

judge_scores_job(
    snakemake.wildcards.judge,
    snakemake.input.manifests,
    snakemake.params.families,
    snakemake.params.genres,
    snakemake.output.scores,
)
