"""Write the evaluated-models table (Tables 7/8) from the model registry."""

import sys

from playsuite.analysis.models_table import models_table
from playsuite.analysis.tables import write_table
from playsuite.registry import load_registry

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

write_table(
    models_table(load_registry(snakemake.input[0])),
    snakemake.output.csv,
    snakemake.output.md,
    snakemake.output.tex,
    caption="Evaluated presets: family, size, parser and prompt template.",
)
