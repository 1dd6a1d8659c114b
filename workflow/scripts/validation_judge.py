"""Judge the validation set with one validation judge (one model server for the whole set)."""

import logging
import sys

from playsuite.judge.run import run_shard_manifest, shard_options
from playsuite.judge.validation import read_sample

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115
logging.basicConfig(stream=sys.stderr, level=logging.INFO)

p = snakemake.params
sample = read_sample(snakemake.input.sample)
episodes = list(sample["episode_dir"])
options = shard_options(
    p.settings,
    p.catalogs,
    episodes,
    p.games_dir,
    vllm=p.vllm,
    server_argv=p.server_argv,
    server_log=str(snakemake.log[0]) + ".server",
)
# judgement files are named by blinded id: the set may hold one game played by several runs
counts = run_shard_manifest(
    p.judge,
    episodes,
    p.judgement_dir,
    snakemake.output.manifest,
    options,
    stems=list(sample["video_id"]),
)
print(f"judge {p.judge}: {len(episodes)} validation episodes, {counts}", file=sys.stderr)
