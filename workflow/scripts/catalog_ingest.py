"""Read a corpus's platform dumps into one normalised records file."""

import sys

from playsuite.catalog.curate import step_ingest

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

indexes = snakemake.params.indexes
step_ingest(
    {
        k: v
        for k, v in snakemake.input.items()
        if k not in indexes and k not in ("debtag_genres", "pypi_rules", "npm_rules")
    },
    snakemake.output.records,
    indexes=indexes,
    debtag_genres=snakemake.input.debtag_genres,
    snapshot=snakemake.output.snapshot,
    excerpt=snakemake.output.excerpt,
    pypi={
        "rules": snakemake.input.pypi_rules,
        "excerpt": snakemake.output.pypi_excerpt,
        "lookups": snakemake.params.pypi_lookups,
    },
    npm={
        "rules": snakemake.input.npm_rules,
        "excerpt": snakemake.output.npm_excerpt,
        "lookups": snakemake.params.npm_lookups,
    },
)
