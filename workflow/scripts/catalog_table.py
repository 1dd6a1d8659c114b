"""The curated corpus table (games.tsv), the genre distribution and Figure 8."""

import sys

from playsuite.catalog.curate import step_table

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

step_table(
    snakemake.input.kept,
    snakemake.input.labels,
    snakemake.input.genres,
    snakemake.output.games,
    snakemake.output.distribution,
    [snakemake.output.pdf, snakemake.output.png],
    snakemake.wildcards.corpus,
)
