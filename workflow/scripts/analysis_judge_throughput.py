"""Figure 10c: judge throughput per setting, from the judge jobs' cost records and manifests."""

import sys

from playsuite.planning.efficiency_jobs import judge_throughput_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

judge_throughput_job(snakemake.params.costs, snakemake.input.manifests, snakemake.output[0])
