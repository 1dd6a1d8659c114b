"""Annotate one run's episodes into horizon.json files and write its index (rule
annotate_horizon_run)."""

import sys

from playsuite.planning.horizon_jobs import annotate_run_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
annotate_run_job(
    p.annotator,
    p.run_dir,
    list(snakemake.input.manifests),
    snakemake.output.index,
    settings=p.settings,
    catalogs=p.catalogs,
    games_dir=p.games_dir,
    vllm=p.vllm,
    log=str(snakemake.log[0]),
)
