"""Judge the validation set with one validation judge (one model server for the whole set)."""

import sys

from playsuite.planning.validation_jobs import validation_judge_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
validation_judge_job(
    p.judge,
    snakemake.input.sample,
    judgement_dir=p.judgement_dir,
    manifest=snakemake.output.manifest,
    settings=p.settings,
    catalogs=p.catalogs,
    games_dir=p.games_dir,
    vllm=p.vllm,
    server_argv=p.server_argv,
    log=str(snakemake.log[0]),
)
