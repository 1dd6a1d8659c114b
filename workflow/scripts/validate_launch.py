"""Rule validate_launch: an acquired game renders non-blank frames and reacts to input."""

from playsuite.planning.jobs import validate_launch_job

validate_launch_job(
    snakemake.input.catalog,
    snakemake.wildcards.game,
    snakemake.input.acquired,
    snakemake.output[0],
    snakemake.log[0],
)
