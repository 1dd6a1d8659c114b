"""Tables 3/11 (genres) and the agreement of genre rankings with the overall ranking."""

import sys

from playsuite.analysis.genres import agreement_range, genre_rank_agreement, genre_table
from playsuite.analysis.outputs import write_stat_table
from playsuite.analysis.scores import read_scores
from playsuite.analysis.settings import analysis_settings

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

s = analysis_settings(snakemake.config)
scores = read_scores(snakemake.input.scores)
table = genre_table(scores, s.with_history, s.without_history, s.genre_min_games, s.bootstrap)
show = [c for c in table.columns if not c.endswith((" low", " high"))]
write_stat_table(
    table,
    snakemake.output.csv,
    snakemake.output.md,
    snakemake.output.tex,
    show=show,
    bold=[c for c in show if c not in ("corpus", "genre", "N")],
    bold_by="corpus",
    caption=f"Progress per genre (genres with at least {s.genre_min_games} games on some corpus, "
    "each with its N on every corpus: games with a valid run), without and with history; best "
    "genre per corpus in bold.",
)
ranks = genre_rank_agreement(scores, s.without_history, s.genre_min_games)
write_stat_table(ranks, snakemake.output.ranks_csv, snakemake.output.ranks_md, digits=3)
write_stat_table(
    agreement_range(ranks),
    snakemake.output.range_csv,
    snakemake.output.range_md,
    snakemake.output.range_tex,
    caption="Spearman correlation between each genre's model ranking and the overall ranking "
    "(min-max over genres).",
    digits=3,
)
