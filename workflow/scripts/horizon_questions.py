"""Build the offline question set from the runs' annotation indexes (rule
build_horizon_questions)."""

import sys

from playsuite.planning.horizon_jobs import questions_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

questions_job(list(snakemake.input.indexes), snakemake.output.questions, snakemake.params.settings)
