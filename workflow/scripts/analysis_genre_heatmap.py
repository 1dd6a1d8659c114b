"""Figures 11-12: per-model genre heatmap of one corpus, every genre labelled with its n."""

import sys

from playsuite.analysis.figures import genre_heatmap, save_figure
from playsuite.analysis.genres import genre_counts, genre_model_means
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import analysis_settings
from playsuite.files import write_text_atomic

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

s = analysis_settings(snakemake.config)
corpus = snakemake.wildcards.corpus
scores = read_scores(snakemake.input.scores)
cond = s.without_history
present = corpus in set(scores["corpus"])
means = genre_model_means(scores, corpus, cond) if present else None
counts = genre_counts(scores, corpus) if present else None
if means is None:
    import pandas as pd

    means = pd.DataFrame()
write_text_atomic(snakemake.output.csv, means.to_csv(index_label="preset"))
save_figure(
    genre_heatmap(means, f"{corpus}: mean progress by genre ({cond})", counts),
    snakemake.output.pdf,
    snakemake.output.png,
)
