"""Rule check_conformance: one acquired game through the runtime contract."""

from playsuite.planning.jobs import conformance_job

conformance_job(
    snakemake.input.catalog,
    snakemake.wildcards.game,
    snakemake.input.acquired,
    snakemake.output[0],
    snakemake.log[0],
)
