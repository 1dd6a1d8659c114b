"""Final per-game decisions, exclusion list, funnel table and the kept games."""

import sys

from playsuite.catalog.curate import step_decide

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

launch = None
if snakemake.params.launch_configured:
    launch = dict(zip(snakemake.params.launch_ids, snakemake.input.launch, strict=True))
step_decide(
    snakemake.input.records,
    snakemake.input.screen,
    snakemake.input.triage,
    launch,
    snakemake.input.exclusions[0] if snakemake.input.exclusions else None,
    snakemake.params.mirror,
    snakemake.params.filters,
    dict(snakemake.output.items()),
)
