"""One preset answers the question set (rule answer_horizon_questions)."""

import sys

from playsuite.planning.horizon_jobs import answer_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
answer_job(
    p.preset,
    snakemake.input.questions,
    snakemake.output.answers,
    settings=p.settings,
    vllm=p.vllm,
    log=str(snakemake.log[0]),
)
