"""Rule conformance_table: a corpus's conformance verdicts as one table and a summary."""

from playsuite.planning.jobs import conformance_table_job

conformance_table_job(list(snakemake.input), snakemake.output.table, snakemake.output.summary)
