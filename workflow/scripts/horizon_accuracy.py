"""Offline accuracy per preset and task with game-level CIs (rule tabulate_horizon_accuracy)."""

import sys

from playsuite.planning.horizon_jobs import accuracy_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

accuracy_job(
    list(snakemake.input.answers), dict(snakemake.output.items()), snakemake.params.bootstrap
)
