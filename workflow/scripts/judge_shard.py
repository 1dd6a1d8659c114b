"""Judge one shard of episodes with one judge (one model server for VLM judges)."""

import logging
import sys

from playsuite.judge.run import (
    play_manifest_episodes,
    probe_episodes,
    run_shard_manifest,
    shard_options,
)

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115
logging.basicConfig(stream=sys.stderr, level=logging.INFO)

p = snakemake.params
catalogs = dict(p.catalogs)
episodes = list(p.episodes) or play_manifest_episodes(p.play_manifest)
if p.judge == "state":
    episodes = probe_episodes(episodes, catalogs)
options = shard_options(
    p.settings,
    catalogs,
    episodes,
    p.games_dir,
    vllm=p.vllm,
    server_argv=p.server_argv,
    server_log=str(snakemake.log[0]) + ".server",
)
counts = run_shard_manifest(p.judge, episodes, p.judgement_dir, snakemake.output.manifest, options)
print(f"judge {p.judge}: {len(episodes)} episodes, {counts}", file=sys.stderr)
