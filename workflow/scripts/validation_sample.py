"""Draw the judge-validation set (Table 10) from the played shards; blind it for raters."""

import sys

from playsuite.judge.validation import candidates, draw_sample, write_validation_set

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

p = snakemake.params
sample, short = draw_sample(candidates(snakemake.input.manifests), dict(p.per_corpus), p.seed)
for corpus, missing in short.items():
    print(f"corpus {corpus}: {missing} fewer valid episodes than asked", file=sys.stderr)
out = snakemake.output
write_validation_set(sample, out.sample, out.raters, out.videos)
print(f"{len(sample)} episodes: {sample.groupby('corpus').size().to_dict()}", file=sys.stderr)
