"""Tables 3/11 (genres) and the agreement of genre rankings with the overall ranking."""

import sys

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.analysis_jobs import genres_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

genres_job(
    snakemake.input.scores, analysis_settings(snakemake.config), dict(snakemake.output.items())
)
