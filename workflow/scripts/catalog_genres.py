"""Genre label of every kept game (tag rule, else the LLM classifier when configured)."""

import sys

from playsuite.catalog.curate import step_genres

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

step_genres(snakemake.input.kept, snakemake.input.genres, snakemake.params.llm, snakemake.output[0])
