"""Rule catalog_launch: the launch dry-run of one catalog candidate that passed triage."""

import json

from playsuite.catalog.launch import step_launch

with open(snakemake.log[0], "w") as log:
    result = step_launch(
        snakemake.input.records,
        snakemake.input.triage,
        snakemake.wildcards.game,
        snakemake.params.package,  # the archive, or a registry game's package name
        snakemake.output[0],
        timeout_s=snakemake.params.timeout_s,
        log=log,
        games_dir=snakemake.params.games_dir,  # shared by the corpus's launch jobs
        conformance=snakemake.params.conformance,  # the corpus's check: conformance
    )
    log.write(json.dumps(result) + "\n")
