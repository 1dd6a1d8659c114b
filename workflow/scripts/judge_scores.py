"""Collect a judge's shard manifests into the scores table results/scores/{judge}.tsv."""

import sys
from pathlib import Path

from playsuite.judge.run import read_shard_manifest
from playsuite.judge.scores import collect_scores
from playsuite.records.scores import write_scores

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

pairs = [
    (row["judgement"], row["episode_dir"])
    for manifest in snakemake.input.manifests
    for row in read_shard_manifest(manifest)
]
genres = {tuple(key.split("/", 1)): genre for key, genre in snakemake.params.genres.items()}
df = collect_scores(snakemake.wildcards.judge, pairs, dict(snakemake.params.families), genres)
write_scores(df, snakemake.output.scores)
shards = len(snakemake.input.manifests)
print(f"{len(df)} rows from {shards} shards -> {Path(snakemake.output.scores)}", file=sys.stderr)
