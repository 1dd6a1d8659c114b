"""Figures 11-12: per-model genre heatmap of one corpus, every genre labelled with its n."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import genre_heatmap_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

genre_heatmap_job(
    snakemake.input.scores,
    snakemake.wildcards.corpus,
    analysis_settings(snakemake.config),
    dict(snakemake.output.items()),
)
