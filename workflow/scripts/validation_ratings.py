"""The validation judges' answers as rating rows (the ratings CSV's format, raters judge:NAME)."""

import sys

import pandas as pd

from playsuite.files import write_text_atomic
from playsuite.judge.validation import judge_ratings, read_sample

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

sample = read_sample(snakemake.input.sample)
frames = [
    judge_ratings(judge, sample, [manifest])
    for judge, manifest in zip(snakemake.params.judges, snakemake.input.manifests, strict=True)
]
table = pd.concat(frames, ignore_index=True)
table["level"] = table["level"].astype("Int64")
write_text_atomic(snakemake.output.csv, table.to_csv(index=False))
