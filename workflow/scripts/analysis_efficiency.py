"""Figure 10: launch overhead, play throughput and judge throughput from benchmark outputs."""

import sys

from playsuite.planning.efficiency_jobs import efficiency_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

efficiency_job(snakemake.params.benchmarks, snakemake.output.pdf, snakemake.output.png)
