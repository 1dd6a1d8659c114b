"""One ablation's table and figure (the paper's Figures 13-15, or any axis), from its file."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import ablation_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

inp, out = snakemake.input, snakemake.output
ablation_job(
    list(inp.scores),
    inp.ablation,
    inp.models,
    analysis_settings(snakemake.config),
    {"csv": out.csv, "md": out.md, "pdf": out.pdf, "png": out.png},
)
