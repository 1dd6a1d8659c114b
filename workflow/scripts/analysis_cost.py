"""Figure 16: GPU-hours per 1,000 scored games against mean progress, from job cost records, in
the configured campaign (analysis.cost); the judge's own cost in a second table."""

import sys

from playsuite.analysis.cost import cost_table, judge_cost_table, read_cost_records
from playsuite.analysis.figures import cost_figure, save_figure
from playsuite.analysis.outputs import write_stat_table
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import analysis_settings
from playsuite.registry import load_registry

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

s = analysis_settings(snakemake.config)
costs = read_cost_records(snakemake.params.costs)
print(f"{len(costs)} cost records under {snakemake.params.costs}", file=sys.stderr)
scores = read_scores(snakemake.input.scores)
table = cost_table(
    scores,
    costs,
    s.cost_condition,
    load_registry(snakemake.input.models),
    exclude=snakemake.params.engine_checks,
    corpus=s.cost_corpus,
)
campaign = f"{s.cost_condition} on {s.cost_corpus or 'all corpora'}"
print(f"campaign: {campaign}", file=sys.stderr)
write_stat_table(
    table,
    snakemake.output.csv,
    snakemake.output.md,
    snakemake.output.tex,
    show=["preset", "family", "params_b", "jobs", "gpu_hours_per_1k", "mean_progress"],
    caption=f"GPU-hours per 1,000 scored games (all recorded jobs, failed and killed ones "
    f"included) and mean progress, {campaign}; judging excluded.",
)
judge_costs = read_cost_records(snakemake.params.judge_costs)
print(f"{len(judge_costs)} judge cost records", file=sys.stderr)
write_stat_table(
    judge_cost_table(judge_costs, scores),
    snakemake.output.judge_csv,
    snakemake.output.judge_md,
    show=[
        "judge",
        "jobs",
        "failed_jobs",
        "killed_jobs",
        "gpu_hours",
        "judged_videos",
        "videos_per_gpu_hour",
    ],
)
save_figure(cost_figure(table), snakemake.output.pdf, snakemake.output.png)
