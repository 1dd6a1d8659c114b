"""Figure 10b: throughput of the same games played with 1..W workers sharing one model server."""

import sys

from playsuite.planning.efficiency_jobs import concurrency_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
concurrency_job(p.workers, snakemake.input.manifests, p.costs, snakemake.output[0])
