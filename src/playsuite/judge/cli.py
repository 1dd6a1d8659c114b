"""``playsuite level``, ``playsuite judge`` and ``playsuite agreement``."""

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


def _judge(args: argparse.Namespace) -> int:
    from playsuite.judge.result import write_judgement
    from playsuite.judge.run import JudgeOptions, judge_one

    options = JudgeOptions(
        catalog=args.catalog, game_dir=args.game_dir, uds=args.uds, attempts=args.attempts
    )
    out = judge_one(args.judge, args.episode, options)
    if args.out:
        write_judgement(args.out, out)
    print(json.dumps(out, indent=2))
    return 0


def _agreement(args: argparse.Namespace) -> int:
    from playsuite.judge.agreement import agreement_table, read_ratings

    table = agreement_table(read_ratings(args.ratings))
    if args.out:
        from playsuite.files import write_text_atomic

        write_text_atomic(args.out, table.to_csv(index=False))
    if args.json:
        print(table.to_json(orient="records", indent=2))
    else:
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("level", help="progress level 0-4 of a milestone JSON file (Table 9)")
    p.add_argument("file", metavar="FILE", help="milestone JSON file, or - for stdin")
    p.set_defaults(func=_level)

    p = sub.add_parser(
        "judge",
        help="judge one episode directory: milestones + level as JSON",
        description="Judge an episode (episode.mp4, trace.jsonl, meta.json). Local judges "
        "(frame, state) need nothing else; a Video-LLM judge needs its server's socket (--uds) "
        "and the game's catalog row (--catalog) for the game context.",
    )
    p.add_argument("episode", metavar="EPISODE_DIR")
    p.add_argument("--judge", required=True, help="judge name from config/models.yaml")
    p.add_argument("--catalog", help="corpus table (YAML/TSV) holding the episode's game")
    p.add_argument("--game-dir", help="the acquired game's directory (for its README)")
    p.add_argument("--uds", help="Unix socket of the judge's model server")
    p.add_argument("--attempts", type=int, default=3, help="answers asked before failing")
    p.add_argument("--out", help="also write the judgement here (atomically)")
    p.set_defaults(func=_judge)

    p = sub.add_parser(
        "agreement",
        help="judge-human agreement from a ratings CSV (Table 10)",
        description="Krippendorff's alpha (interval), within-one-level and milestone agreement "
        "for humans and for every judge (raters named 'judge:...') in RATINGS.csv.",
    )
    p.add_argument("ratings", metavar="RATINGS.csv")
    p.add_argument("--json", action="store_true", help="print JSON records instead of a table")
    p.add_argument("--out", help="also write the table as CSV")
    p.set_defaults(func=_agreement)
