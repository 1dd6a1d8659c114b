"""Table 2: main results per preset from a scores table."""

import sys

from playsuite.analysis.main_results import display_columns, drop_empty_rows, main_results
from playsuite.analysis.outputs import write_stat_table
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import analysis_settings

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

s = analysis_settings(snakemake.config)
table = drop_empty_rows(
    main_results(
        read_scores(snakemake.input.scores), s.with_history, s.without_history, s.bootstrap
    )
)
show = display_columns(table)
write_stat_table(
    table,
    snakemake.output.csv,
    snakemake.output.md,
    snakemake.output.tex,
    show=show,
    bold=[c for c in show if c not in ("family", "preset")],
    caption="Mean progress level (0-4) with and without history and Partial+ share (%), "
    "per corpus; best in bold. Game-level 95% bootstrap intervals in the CSV.",
)
