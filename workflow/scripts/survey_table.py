"""Rule survey_table: one registry's survey table (candidate, outcome, date) and its summary."""

from playsuite.catalog.survey import step_survey

with open(snakemake.log[0], "w") as log:
    rows = step_survey(
        snakemake.input.records,
        snakemake.input.decisions,
        snakemake.input.snapshot,
        snakemake.input.launch,
        snakemake.output.table,
        snakemake.output.summary,
        snakemake.wildcards.source,
        excerpts=[snakemake.input.pypi, snakemake.input.npm],
    )
    log.write(f"{len(rows)} candidates\n")
