"""Figure 5: leaderboard stability on random game subsets."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import stability_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

stability_job(
    snakemake.input.scores, analysis_settings(snakemake.config), dict(snakemake.output.items())
)
