"""Build one tiny random-weight model (engine checks) with the configured engine's Python."""

import sys

from playsuite.planning.jobs import tiny_model_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

tiny_model_job(snakemake.wildcards.arch, snakemake.output[0], snakemake.params.vllm)
