"""Rule validate_launch_block: launch validation of one acquisition block's games."""

from playsuite.planning.jobs import validate_launch_block_job

validate_launch_block_job(
    snakemake.input.catalog,
    list(snakemake.input.acquired),
    snakemake.output[0],
    snakemake.log[0],
    snakemake.params.game_logs,
)
