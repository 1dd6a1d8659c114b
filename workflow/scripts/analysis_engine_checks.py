"""The engine-check table: tiny random-weight models played and judged, apart from the paper."""

import sys

from playsuite.analysis.engine_checks import engine_check_markdown, engine_check_table
from playsuite.files import write_text_atomic

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

table = engine_check_table(snakemake.input.play, snakemake.params.judge, snakemake.input.judge)
write_text_atomic(snakemake.output.csv, table.to_csv(index=False))
write_text_atomic(snakemake.output.md, engine_check_markdown(table))
print(f"{len(table)} engine-check runs -> {snakemake.output.csv}", file=sys.stderr)
