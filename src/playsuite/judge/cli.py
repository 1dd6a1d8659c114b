"""``playsuite level``: apply the Table 9 rule to a milestone file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from playsuite.judge.levels import level_name, progress_level
from playsuite.judge.schema import validate_milestones


def _level(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{args.file}: not JSON: {exc}") from None
    level = progress_level(validate_milestones(obj))
    print(json.dumps({"level": level, "name": level_name(level)}))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("level", help="progress level 0-4 of a milestone JSON file (Table 9)")
    p.add_argument("file", metavar="FILE", help="milestone JSON file, or - for stdin")
    p.set_defaults(func=_level)
