"""The campaign's dashboard: main table, figures, reproduction report and run browser."""

import sys

from playsuite.planning.analysis_jobs import dashboard_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

i = snakemake.input
dashboard_job(
    snakemake.wildcards.judge,
    i.scores,
    main_table=i.main,
    report=i.report,
    figures=list(i.figures),
    inspect_dir=i.inspect,
    out=snakemake.output[0],
)
