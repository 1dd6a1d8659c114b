"""Fetch one game from its registry into results/games/{game}/ (rule acquire_game)."""

from playsuite.planning.jobs import acquire_job

acquire_job(
    snakemake.input.catalog,
    snakemake.wildcards.game,
    snakemake.params.games_dir,
    snakemake.log[0],
)
