"""``playsuite inspect``: the inspection page of one episode."""

from __future__ import annotations

import argparse

from playsuite.analysis.inspector import write_episode_page


def _inspect(args: argparse.Namespace) -> int:
    out = write_episode_page(args.episode_dir, args.out, args.judgement, args.copy_video)
    print(out)
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
