"""Table 10: agreement of the judges with human raters.

Human ratings come from analysis.ratings (which may also hold judge rows); the validation
judges' answers (validation:) from results/validation/judge_ratings.csv. Without human ratings
the table lists what the judges judged and says that ratings are missing.
"""

import sys

import pandas as pd

from playsuite.analysis.outputs import write_stat_table
from playsuite.files import write_text_atomic
from playsuite.judge.agreement import read_ratings
from playsuite.judge.validation import validation_agreement

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

inp = snakemake.input
humans = read_ratings(inp.ratings[0]) if inp.ratings else None
judges = (
    pd.concat([read_ratings(path) for path in inp.judges], ignore_index=True)
    if inp.judges
    else pd.DataFrame(columns=["video_id", "rater", "level"])
)
table, note = validation_agreement(judges, humans)
caption = (
    "Judge validation: Krippendorff's alpha (interval) on progress levels, share of "
    "rating pairs within one level and equal, and milestone agreement."
)
write_stat_table(
    table,
    snakemake.output.csv,
    snakemake.output.md,
    snakemake.output.tex,
    bold=["alpha", "within_one", "exact", "milestone_agreement"],
    caption=caption if note is None else f"{caption} {note}",
    digits=3,
)
if note is not None:
    with open(snakemake.output.md, encoding="utf-8") as fh:
        write_text_atomic(snakemake.output.md, f"{note}\n\n{fh.read()}")
    print(note, file=sys.stderr)
