"""Safety triage and engine fingerprints of the archives of screened-in games."""

import sys

from playsuite.catalog.curate import step_triage

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

step_triage(
    snakemake.input.records,
    dict(zip(snakemake.params.ids, snakemake.input.archives, strict=True)),
    snakemake.params.triage,
    snakemake.input.exclusions[0] if snakemake.input.exclusions else None,
    snakemake.output[0],
    threads=snakemake.threads,
    packages=snakemake.params.packages,
)
