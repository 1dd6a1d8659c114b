"""Write a synthetic paper-scale catalog (5,630 itch.io + 104 PyWeek games) for planning.

The paper's curated tables come from the catalog stage (``results/catalog/{corpus}/games.tsv``,
docs/catalog.md), which needs the platform dumps and archives. Planning the whole paper
(``snakemake -n --configfile config/paper.yaml``) only needs tables of the right size and shape,
so this script writes seeded, clearly synthetic rows: ids, runtimes and genres in the paper's
proportions, archive paths that do not exist. Never play these tables.

    .venv/bin/python benchmarks/paper_catalog.py --out /tmp/paper-catalog
    # -> /tmp/paper-catalog/itch.tsv, /tmp/paper-catalog/pyweek.tsv
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from playsuite.config import config_dir, load_yaml
from playsuite.corpus import GameEntry, write_corpus_tsv

#: Paper §3: games kept after curation.
PAPER_COUNTS = {"itch": 5630, "pyweek": 104}
#: Share of itch.io games that are HTML5 (browser); the rest are native Linux builds.
ITCH_BROWSER_SHARE = 0.8


def _genres() -> list[str]:
    return [g["name"] for g in load_yaml(config_dir() / "genres.yaml")["genres"]]


def synthetic_corpus(corpus: str, count: int, seed: int = 0) -> list[GameEntry]:
    """``count`` synthetic rows of ``corpus`` (``itch`` or ``pyweek``), the same for a seed."""
    rng = random.Random(f"{corpus}-{seed}")
    genres = _genres()
    games = []
    for i in range(count):
        gid = f"{corpus}-synthetic-{i:05d}"
        if corpus == "pyweek":
            runtime, entry, package = "pygame", "run_game.py", f"pyweek/{gid}.zip"
        elif rng.random() < ITCH_BROWSER_SHARE:
            runtime, entry, package = "browser", "index.html", f"itch/{gid}.zip"
        else:
            runtime, entry, package = "native", "./game.x86_64", f"itch/{gid}.tar.gz"
        genre = rng.choice(genres)
        games.append(
            GameEntry(
                id=gid,
                title=f"Synthetic {corpus} game {i}",
                author="synthetic",
                source=corpus,
                package=package,
                runtime=runtime,
                entry=entry,
                tags=(genre,) if corpus == "itch" else (),
                genre=genre,
                description="Synthetic row for workflow planning; there is no such game.",
                controls="Arrow keys and mouse.",
                rating=round(rng.uniform(3.1, 5.0), 2) if corpus == "itch" else None,
                rating_count=rng.randint(5, 500) if corpus == "itch" else None,
            )
        )
    return games


def write_paper_catalog(out: Path, seed: int = 0) -> dict[str, Path]:
    """Write ``{corpus}.tsv`` for every paper corpus under ``out``; their paths."""
    paths = {}
    for corpus, count in PAPER_COUNTS.items():
        path = out / f"{corpus}.tsv"
        write_corpus_tsv(synthetic_corpus(corpus, count, seed), path)
        paths[corpus] = path
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for itch.tsv and pyweek.tsv")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for corpus, path in write_paper_catalog(args.out, args.seed).items():
        print(f"{corpus}: {PAPER_COUNTS[corpus]} games -> {path}")


if __name__ == "__main__":
    main()
