"""Rules judge_shard and judge_episode: one judge on a shard of episodes, or on one episode."""

import sys

from playsuite.planning.jobs import judge_job

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p, w = snakemake.params, snakemake.wildcards
judge_job(
    p.judge,
    list(p.episodes),
    play_manifest=p.play_manifest,
    judgement_dir=p.judgement_dir,
    manifest=snakemake.output.get("manifest"),
    settings=p.settings,
    catalogs=p.catalogs,
    games_dir=p.games_dir,
    vllm=p.vllm,
    server_argv=p.server_argv,
    log=str(snakemake.log[0]),
    costs=p.costs or None,
    cost_fields={
        "corpus": w.corpus,
        "preset": w.preset,
        "condition": w.condition,
        "shard": p.shard,
        "gpus": int(p.gpus),
        "max_num_batched_tokens": p.batched_tokens,
    },
)
