"""``playsuite genre`` (the tag -> genre rule) and ``playsuite triage`` (archive risk score)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from playsuite.archives.triage import PLATFORMS, scan_archive
from playsuite.catalog.genres import load_taxonomy, split_tags


def _genre(args: argparse.Namespace) -> int:
    taxonomy = load_taxonomy(args.genres)
    tags = split_tags(args.tags)
    genre = taxonomy.classify(tags)
    if genre is None:
        raise ValueError(
            f"none of {tags} is a genre tag (known: "
            + ", ".join(t for g in taxonomy.genres for t in g.tags)
            + ")"
        )
    print(genre)
    return 0


def _triage(args: argparse.Namespace) -> int:
    path = Path(args.archive)
    if not path.is_file():
        raise FileNotFoundError(f"no such archive: {path}")
    report = scan_archive(
        path,
        platform=args.platform,
        entry=args.entry,
        rating_count=args.rating_count,
        trusted_rating_count=args.trusted_rating_count,
    )
    print(json.dumps(report.to_dict(), indent=2))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("genre", help="canonical genre of itch.io tags (Table 6 rule)")
    p.add_argument("--tags", required=True, help='comma-separated tags, e.g. "Action,Racing"')
    p.add_argument("--genres", help="taxonomy file (default: config/genres.yaml)")
    p.set_defaults(func=_genre)

    p = sub.add_parser("triage", help="risk score and run policy of a game archive (no extraction)")
    p.add_argument("archive", metavar="ARCHIVE", help="zip or tar(.gz/.bz2/.xz) archive")
    p.add_argument("--rating-count", type=int, help="ratings on the platform (trust)")
    p.add_argument("--trusted-rating-count", type=int, default=50, help="trusted above this")
    p.add_argument("--platform", choices=PLATFORMS, help="build platform (default: guessed)")
    p.add_argument("--entry", help="declared start command inside the archive")
    p.set_defaults(func=_triage)
