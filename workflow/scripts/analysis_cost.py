"""Figure 16: GPU-hours per 1,000 scored games against mean progress; the judge's own cost."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import cost_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
cost_job(
    snakemake.input.scores,
    snakemake.input.models,
    analysis_settings(snakemake.config),
    costs=p.costs,
    judge_costs=p.judge_costs,
    engine_checks=p.engine_checks,
    out=dict(snakemake.output.items()),
)
