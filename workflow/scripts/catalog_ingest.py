"""Read a corpus's platform dumps into one normalised records file."""

import sys

from playsuite.catalog.curate import step_ingest

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

indexes = snakemake.params.indexes
step_ingest(
    {k: v for k, v in snakemake.input.items() if k not in indexes and k != "debtag_genres"},
    snakemake.output.records,
    indexes=indexes,
    debtag_genres=snakemake.input.debtag_genres,
    snapshot=snakemake.output.snapshot,
    excerpt=snakemake.output.excerpt,
)
