"""Figures 13-15: one ablation (history length, action rate or prompting), from its config."""

import sys

from playsuite.analysis import figures
from playsuite.analysis.ablations import ablation_scores, load_ablation
from playsuite.analysis.action_rate import action_rate
from playsuite.analysis.history import history_curves
from playsuite.analysis.outputs import write_stat_table
from playsuite.analysis.prompting import prompting_effects
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import analysis_settings
from playsuite.registry import load_registry

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

s = analysis_settings(snakemake.config)
ab = load_ablation(snakemake.input.ablation)
df, missing = ablation_scores(
    read_scores(snakemake.input.scores), ab, load_registry(snakemake.input.models)
)
title = ab.title + (f" (not run: {', '.join(missing)})" if missing else "")
if missing:
    print(f"ablation {ab.name}: conditions never run: {missing}", file=sys.stderr)
if ab.kind == "history":
    table = history_curves(df, ab, s.bootstrap)
    fig = figures.history_figure(table, title)
elif ab.kind == "rate":
    table, per_model = action_rate(df, ab, s.bootstrap)
    fig = figures.rate_figure(table, per_model, title)
else:
    table = prompting_effects(df, ab, s.bootstrap)
    fig = figures.prompting_figure(table, title)
write_stat_table(table, snakemake.output.csv, snakemake.output.md, digits=3)
figures.save_figure(fig, snakemake.output.pdf, snakemake.output.png)
