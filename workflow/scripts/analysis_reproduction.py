"""Reproduction report: every measured cell beside the paper's published value."""

import sys

import pandas as pd

from playsuite.analysis import reference as ref
from playsuite.analysis.ablations import load_ablation
from playsuite.files import write_text_atomic

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

inp = snakemake.input
parts = [
    ref.main_cells(pd.read_csv(inp.main)),
    ref.genre_cells(pd.read_csv(inp.genres)),
    ref.agreement_cells(pd.read_csv(inp.genre_range)),
    ref.stability_cells(pd.read_csv(inp.stability)),
]
for path, table in zip(inp.ablation_files, inp.ablations, strict=True):
    ab = load_ablation(path)
    try:
        frame = pd.read_csv(table)
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame()
    parts.append(ref.ablation_cells(ab.name, ab.kind, frame))
published = ref.load_reference(inp.reference[0]) if len(inp.reference) else {}
table = ref.reproduction_table(published, ref.merge_cells(parts))
write_text_atomic(snakemake.output.csv, table.to_csv(index=False))
write_text_atomic(
    snakemake.output.md,
    ref.reproduction_markdown(table, f"Reproduction report ({snakemake.wildcards.judge} judge)"),
)
