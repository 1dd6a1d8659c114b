"""Table 10: agreement of the judges with human raters, from the ratings CSV."""

import sys

from playsuite.analysis.outputs import write_stat_table
from playsuite.judge.agreement import agreement_table, read_ratings

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

write_stat_table(
    agreement_table(read_ratings(snakemake.input.ratings)),
    snakemake.output.csv,
    snakemake.output.md,
    snakemake.output.tex,
    bold=["alpha", "within_one", "exact", "milestone_agreement"],
    caption="Judge validation: Krippendorff's alpha (interval) on progress levels, share of "
    "rating pairs within one level and equal, and milestone agreement.",
    digits=3,
)
