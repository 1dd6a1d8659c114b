"""Reproduction report: every published number beside the measured one, with its interval."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import reproduction_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

inp, p = snakemake.input, snakemake.params
names = ("scores", "models", "main", "genres", "genre_range", "stability", "ablations")
names += ("ablation_files", "reference", "agreement", "engine_checks", "funnels", "harm")
reproduction_job(
    snakemake.wildcards.judge,
    {name: getattr(inp, name) for name in names},
    analysis_settings(snakemake.config),
    costs=p.costs,
    benchmarks=p.benchmarks,
    engine_checks=p.engine_checks,
    csv=snakemake.output.csv,
    md=snakemake.output.md,
)
