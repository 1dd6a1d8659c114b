"""Metadata and technical filter stages for every ingested game (text-based exclusions checked
by a model when catalog.technical_validator is set)."""

import sys

from playsuite.catalog.curate import step_screen

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

step_screen(
    snakemake.input.records,
    snakemake.input.exclusions[0] if snakemake.input.exclusions else None,
    snakemake.params.filters,
    snakemake.output.screen,
    snakemake.params.validator,
    snakemake.output.checks,
)
