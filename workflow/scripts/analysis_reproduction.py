"""Reproduction report: every measured cell beside the paper's published value."""

import sys

from playsuite.analysis import reference as ref
from playsuite.analysis.ablations import load_ablation
from playsuite.analysis.engine_checks import engine_check_markdown
from playsuite.analysis.outputs import read_table
from playsuite.files import write_text_atomic

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

inp = snakemake.input
parts = [
    ref.main_cells(read_table(inp.main)),
    ref.genre_cells(read_table(inp.genres)),
    ref.agreement_cells(read_table(inp.genre_range)),
    ref.stability_cells(read_table(inp.stability)),
]
for path, table in zip(inp.ablation_files, inp.ablations, strict=True):
    ab = load_ablation(path)
    parts.append(ref.ablation_cells(ab.name, ab.kind, read_table(table)))
if len(inp.agreement):
    parts.append(ref.judge_agreement_cells(read_table(inp.agreement[0])))
published = ref.load_reference(inp.reference[0]) if len(inp.reference) else {}
table = ref.reproduction_table(published, ref.merge_cells(parts))
write_text_atomic(snakemake.output.csv, table.to_csv(index=False))
text = ref.reproduction_markdown(table, f"Reproduction report ({snakemake.wildcards.judge} judge)")
if len(inp.engine_checks):  # configured engine checks: their own section, after every result
    text += "\n" + engine_check_markdown(read_table(inp.engine_checks[0]), heading="##")
write_text_atomic(snakemake.output.md, text)
