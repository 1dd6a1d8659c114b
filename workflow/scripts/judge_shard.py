"""Judge one shard of episodes with one judge (one model server for VLM judges)."""

import logging
import sys
from pathlib import Path

from playsuite.harness.costs import JUDGE_COLUMNS, CostRecord
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
# The attempt's cost record exists from the start: a killed attempt keeps "running" and is
# counted as killed (playsuite.harness.costs); the judges' cost is reported apart (rule
# cost_performance), as the paper excludes judging from the cost figure.
Path(p.costs).parent.mkdir(parents=True, exist_ok=True)
w = snakemake.wildcards
cost = CostRecord(
    Path(p.costs),
    {
        "judge": p.judge,
        "corpus": w.corpus,
        "preset": w.preset,
        "condition": w.condition,
        "shard": w.shard,
        "gpus": int(p.gpus),
        "prefetch": "" if p.settings.get("prefetch") is None else int(p.settings["prefetch"]),
        "max_num_batched_tokens": p.batched_tokens,
    },
    columns=JUDGE_COLUMNS,
).start()
status = "failed"
try:
    counts = run_shard_manifest(
        p.judge, episodes, p.judgement_dir, snakemake.output.manifest, options
    )
    status = "ok"
finally:
    cost.finish(status)
print(f"judge {p.judge}: {len(episodes)} episodes, {counts}", file=sys.stderr)
