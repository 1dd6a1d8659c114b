"""Figure 16: GPU-hours per 1,000 scored games against mean progress, from job cost records."""

import sys

from playsuite.analysis.cost import cost_table, read_cost_records
from playsuite.analysis.figures import cost_figure, save_figure
from playsuite.analysis.outputs import write_stat_table
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import analysis_settings
from playsuite.registry import load_registry

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

s = analysis_settings(snakemake.config)
costs = read_cost_records(snakemake.params.costs)
print(f"{len(costs)} cost records under {snakemake.params.costs}", file=sys.stderr)
table = cost_table(
    read_scores(snakemake.input.scores),
    costs,
    s.without_history,
    load_registry(snakemake.input.models),
    exclude=snakemake.params.engine_checks,
)
write_stat_table(
    table,
    snakemake.output.csv,
    snakemake.output.md,
    snakemake.output.tex,
    show=["preset", "family", "params_b", "jobs", "gpu_hours_per_1k", "mean_progress"],
    caption="GPU-hours per 1,000 scored games (all recorded jobs, failed ones included) and "
    "mean progress without history.",
)
save_figure(cost_figure(table), snakemake.output.pdf, snakemake.output.png)
