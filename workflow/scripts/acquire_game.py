"""Fetch one game from its registry into results/games/{game}/ (rule acquire_game)."""

from playsuite.corpus import find_game, load_corpus
from playsuite.runtimes.acquire import acquire

with open(snakemake.log[0], "w") as log:
    game = find_game(load_corpus(snakemake.input.catalog), snakemake.wildcards.game)
    acquire(game, snakemake.params.games_dir, log=log)
