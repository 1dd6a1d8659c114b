"""Figures 11-12: per-model genre heatmap of one corpus."""

import sys

from playsuite.analysis.figures import genre_heatmap, save_figure
from playsuite.analysis.genres import genre_model_means
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import analysis_settings
from playsuite.files import write_text_atomic

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

s = analysis_settings(snakemake.config)
corpus = snakemake.wildcards.corpus
scores = read_scores(snakemake.input.scores)
cond = s.without_history
means = genre_model_means(scores, corpus, cond) if corpus in set(scores["corpus"]) else None
if means is None:
    import pandas as pd

    means = pd.DataFrame()
write_text_atomic(snakemake.output.csv, means.to_csv(index_label="preset"))
save_figure(
    genre_heatmap(means, f"{corpus}: mean progress by genre ({cond})"),
    snakemake.output.pdf,
    snakemake.output.png,
)
