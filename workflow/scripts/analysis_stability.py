"""Figure 5: leaderboard stability on random game subsets."""

import sys

from playsuite.analysis.figures import save_figure, stability_figure
from playsuite.analysis.outputs import write_stat_table
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import analysis_settings
from playsuite.analysis.stability import stability

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

s = analysis_settings(snakemake.config)
st = s.stability
table = stability(
    read_scores(snakemake.input.scores),
    s.stability_condition,
    st.sizes,
    st.subsets,
    st.top,
    st.seed,
)
write_stat_table(
    table,
    snakemake.output.csv,
    snakemake.output.md,
    snakemake.output.tex,
    show=["corpus", "n", "spearman median", "top1 share", "topk share"],
    caption=f"Leaderboard stability over {st.subsets} random subsets per size "
    f"({s.stability_condition}).",
    digits=3,
)
save_figure(stability_figure(table), snakemake.output.pdf, snakemake.output.png)
