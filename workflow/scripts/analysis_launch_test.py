"""Figure 10a: launch overhead of each launcher on a sample of the corpus's games."""

import sys
from pathlib import Path

import pandas as pd

from playsuite.corpus import find_game, load_corpus
from playsuite.files import write_text_atomic
from playsuite.runtimes.launchtest import COLUMNS, launch_test

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

corpus = load_corpus(snakemake.input.catalog)
games = [find_game(corpus, g) for g in snakemake.params.games]
files = {g.id: Path(snakemake.params.games_dir) / g.id / "files" for g in games}
rows = launch_test(games, files, float(snakemake.params.fixed_wait_s))
table = pd.DataFrame(rows, columns=list(COLUMNS))
print(table.groupby("launcher")["launch_s"].describe(), file=sys.stderr)
write_text_atomic(snakemake.output[0], table.to_csv(sep="\t", index=False))
