"""Figure 10a: launch overhead of each launcher on a sample of the corpus's games."""

import sys

from playsuite.planning.efficiency_jobs import launch_test_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
launch_test_job(snakemake.input.catalog, p.games, p.games_dir, p.fixed_wait_s, snakemake.output[0])
