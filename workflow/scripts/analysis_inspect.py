"""Inspection pages of every episode in a scores table, and the filterable index."""

import sys

from playsuite.analysis.inspector import build_site
from playsuite.analysis.scores import read_scores

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

build_site(
    read_scores(snakemake.input.scores),
    snakemake.params.runs,
    snakemake.params.judgements,
    snakemake.output[0],
)
