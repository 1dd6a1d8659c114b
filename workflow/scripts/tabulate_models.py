"""Write the evaluated-models table (Tables 7/8) from the model registry."""

import sys

from playsuite.planning.analysis_jobs import models_table_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

models_table_job(snakemake.input[0], dict(snakemake.output.items()))
