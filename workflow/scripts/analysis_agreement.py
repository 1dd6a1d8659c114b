"""Table 10: agreement of the judges with human raters (rule judge_agreement)."""

import sys

from playsuite.planning.validation_jobs import agreement_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

inp = snakemake.input
agreement_job(
    inp.ratings[0] if inp.ratings else None, list(inp.judges), dict(snakemake.output.items())
)
