"""Read a corpus's platform dumps into one normalised records file."""

import sys

from playsuite.catalog.curate import step_ingest

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

step_ingest({k: v for k, v in snakemake.input.items()}, snakemake.output[0])
