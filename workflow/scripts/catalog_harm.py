"""Table 4: harm-category candidates of the kept games, validated by a model when configured."""

import sys

from playsuite.catalog.curate import step_harm

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

step_harm(
    snakemake.input.kept,
    snakemake.input.categories,
    snakemake.params.validator,
    snakemake.output.candidates,
    snakemake.output.csv,
    snakemake.output.md,
)
