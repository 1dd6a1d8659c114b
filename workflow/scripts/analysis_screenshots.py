"""Pictures of the dashboard and of one episode's inspection page, taken in Chromium."""

import sys

from playsuite.planning.analysis_jobs import screenshots_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

i, o = snakemake.input, snakemake.output
screenshots_job(
    i.scores, i.dashboard, i.inspect, inspector_png=o.inspector, dashboard_png=o.dashboard
)
