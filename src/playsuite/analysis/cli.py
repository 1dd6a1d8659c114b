"""``playsuite inspect`` (the inspection page of one episode) and ``playsuite export-dataset``
(episodes as a Hugging Face dataset)."""

from __future__ import annotations

import argparse
from pathlib import Path

from playsuite.analysis.dataset import (
    DEFAULT_IMAGE_FORMAT,
    DEFAULT_JPEG_QUALITY,
    IMAGE_FORMATS,
    EpisodeSource,
    ExportOptions,
    export_dataset,
    export_log,
    find_episodes,
    load_scores_sources,
)
from playsuite.analysis.inspector import write_episode_page


def _inspect(args: argparse.Namespace) -> int:
    out = write_episode_page(args.episode_dir, args.out, args.judgement, args.copy_video)
    print(out)
    return 0


def _export_dataset(args: argparse.Namespace) -> int:
    if args.scores and args.episodes:
        raise ValueError("give either --scores or episode folders, not both")
    if args.scores:
        sources = load_scores_sources(args.scores, args.runs, args.judgements)
        what = f"the episodes of the scores table `{args.scores}`"
    elif args.episodes:
        judgements = Path(args.judgements) if args.judgements else None
        found = [path for root in args.episodes for path in find_episodes(root)]
        sources = [EpisodeSource(path, judgements) for path in found]
        what = "the episode folders " + ", ".join(f"`{e}`" for e in args.episodes)
    else:
        raise ValueError("nothing to export: give episode folders or --scores TABLE")
    options = ExportOptions(
        image_format=args.image_format,
        jpeg_quality=args.jpeg_quality,
        title=args.title,
        provenance=f"Exported from {what} by `playsuite export-dataset`"
        + (f", judgements from `{args.judgements}`." if args.judgements else "."),
    )
    print(export_log(export_dataset(sources, args.out, options)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "inspect",
        help="static HTML page of an episode: video, agent steps and judge milestones",
    )
    p.add_argument("episode_dir", metavar="EPISODE_DIR")
    p.add_argument("--judgement", metavar="FILE", help="judge JSON with timestamped milestones")
    p.add_argument("--out", required=True, metavar="HTML", help="page to write")
    p.add_argument(
        "--copy-video",
        action="store_true",
        help="copy the mp4 next to the page instead of linking it by relative path",
    )
    p.set_defaults(func=_inspect)

    p = sub.add_parser(
        "export-dataset",
        help="episodes as a Hugging Face dataset (Parquet + card) for datasets.load_dataset",
        description="Write episodes (video, trace, meta.json; any that played them) as a dataset "
        "folder that datasets.load_dataset('parquet', ...) opens: frames/ (the judge's 1 fps "
        "samples as images), steps/ (raw responses, canonical actions), episodes/ (metadata, "
        "judge level) and a dataset card README.md. The folder is replaced whole once complete. "
        "Episodes come from folders (an episode directory, or a folder searched for them) or "
        "from a scores table (a judged campaign: its rows' episodes under --runs).",
    )
    p.add_argument("out", metavar="OUT", help="dataset folder to write")
    p.add_argument(
        "episodes",
        metavar="EPISODES",
        nargs="*",
        help="episode directories, or folders holding them (e.g. results/runs)",
    )
    p.add_argument("--scores", metavar="TSV", help="export the episodes of this scores table")
    p.add_argument(
        "--runs", default="results/runs", help="episodes of --scores live here (results/runs)"
    )
    p.add_argument(
        "--judgements",
        metavar="DIR",
        help="a judge's judgements (results/judgements/JUDGE): adds its level and milestones",
    )
    p.add_argument(
        "--image-format",
        choices=IMAGE_FORMATS,
        default=DEFAULT_IMAGE_FORMAT,
        help=f"how frames are stored (default {DEFAULT_IMAGE_FORMAT}; png: lossless)",
    )
    p.add_argument(
        "--jpeg-quality",
        type=int,
        default=DEFAULT_JPEG_QUALITY,
        help=f"1..95 (default {DEFAULT_JPEG_QUALITY})",
    )
    p.add_argument("--title", default=ExportOptions.title, help="the card's title")
    p.set_defaults(func=_export_dataset)
