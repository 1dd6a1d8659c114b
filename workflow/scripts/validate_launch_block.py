"""Rule validate_launch_block: launch validation of one acquisition block's games."""

from playsuite.planning.jobs import validate_launch_block_job

# The job validates games in spawned processes, which import this file as __mp_main__: only the
# job's own process may run it.
if __name__ == "__main__":
    validate_launch_block_job(
        snakemake.input.catalog,
        list(snakemake.input.acquired),
        snakemake.output[0],
        snakemake.log[0],
        snakemake.params.game_logs,
        workers=snakemake.threads,
    )
