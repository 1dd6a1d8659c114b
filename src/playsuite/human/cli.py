"""``playsuite human play``, ``playsuite human rate`` and ``playsuite human sample``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playsuite.harness.cli import step_count

#: Where a study keeps its key for pseudonymous ids (playsuite.human.identity).
DEFAULT_SECRET = "results/humans/study.secret"
PACED_CONDITION = "k0-hz0.33-base"
#: The live mode's slice rate: 10 slices a second of game time.
LIVE_HZ = 10.0


def _play(args: argparse.Namespace) -> int:
    from playsuite.config import Condition, config_dir
    from playsuite.corpus import find_game, load_corpus
    from playsuite.harness.cli import limits_for
    from playsuite.harness.job import DEFAULT_VIDEO_FPS
    from playsuite.human.identity import pseudonym, study_secret
    from playsuite.human.play import HumanRun, serve_and_play
    from playsuite.runtimes.acquire import acquire

    catalog = load_corpus(args.catalog or config_dir() / "corpora" / "local.yaml")
    game = find_game(catalog, args.game)
    if args.condition:
        condition = Condition.parse(args.condition)
    elif args.mode == "live":
        condition = Condition.parse(f"k0-hz{args.hz:g}-base")
    else:
        condition = Condition.parse(PACED_CONDITION)
    player = pseudonym(args.player, study_secret(args.secret), "p")
    out = Path(args.out or Path(args.runs_dir) / args.corpus / "human" / condition.name / game.id)
    if (out / "meta.json").exists():
        print(
            f"playsuite human play: error: {out} already holds an episode; "
            "give another --out (one folder per player and game)",
            file=sys.stderr,
        )
        return 1
    games_dir = Path(args.games_dir)
    acquire(game, games_dir)
    limits = limits_for(args.steps, args.wall_timeout)[game.runtime]
    run = HumanRun(
        game=game,
        games_dir=games_dir,
        out_dir=out,
        player=player,
        mode=args.mode,
        condition=condition,
        corpus=args.corpus,
        limits=limits,
        video_fps=DEFAULT_VIDEO_FPS.get(game.runtime, 10.0),
        sandbox=args.sandbox,
        base_seed=args.seed,
    )
    print(f"player {player}: {game.id}, {args.mode} mode, condition {condition.name}")

    def ready(url: str) -> None:
        print(f"open {url} (this machine only)", flush=True)

    meta = serve_and_play(run, port=args.port, on_ready=ready)
    print(f"{out}: {meta['status']}, {meta['steps']} steps, {meta['t_game']} s of game time")
    return 0


def _rate(args: argparse.Namespace) -> int:
    from playsuite.human.identity import study_secret
    from playsuite.human.rate import RatingStudy, serve_ratings

    study = RatingStudy.load(args.raters, args.ratings, study_secret(args.secret))

    def ready(url: str) -> None:
        print(f"{len(study.videos)} videos; raters open {url} (this machine only)", flush=True)

    serve_ratings(study, port=args.port, on_ready=ready)
    return 0


def _sample(args: argparse.Namespace) -> int:
    from playsuite.config import schema_default
    from playsuite.planning.validation_jobs import validation_sample_job

    per_corpus = {}
    if not args.per_corpus:
        per_corpus = dict(schema_default("config", "validation", "per_corpus"))
    for item in args.per_corpus or ():
        corpus, _, n = item.partition("=")
        if not n.isdigit():
            raise ValueError(f"--per-corpus takes CORPUS=N, got {item!r}")
        per_corpus[corpus] = int(n)
    out = Path(args.out)
    validation_sample_job(
        args.manifests,
        per_corpus,
        args.seed,
        {
            "sample": str(out / "sample.tsv"),
            "raters": str(out / "raters.csv"),
            "videos": str(out / "videos"),
        },
    )
    print(f"raters' list: {out / 'raters.csv'} (the key: {out / 'sample.tsv'})")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    h = sub.add_parser("human", help="people in the loop: play a game, rate episode videos")
    hs = h.add_subparsers(dest="human_command", required=True, metavar="WHAT")

    p = hs.add_parser(
        "play",
        help="play a corpus game from a local web page, recorded as an episode",
        description="Serve a page on 127.0.0.1 where a person plays GAME through the models' "
        "runtime, sandbox and recorder (docs/human.md).",
    )
    p.add_argument("game", help="game id in the corpus table")
    p.add_argument("--player", required=True, help="the player's name (recorded as a pseudonym)")
    p.add_argument("--mode", choices=("paced", "live"), default="paced")
    p.add_argument(
        "--condition",
        help=f"condition (default: {PACED_CONDITION} paced, k0-hz{LIVE_HZ:g}-base live)",
    )
    p.add_argument("--hz", type=float, default=LIVE_HZ, help="live mode: slices per second")
    p.add_argument("--catalog", help="corpus table (default: config/corpora/local.yaml)")
    p.add_argument("--corpus", default="local", help="corpus name recorded in meta.json")
    p.add_argument("--runs-dir", default="results/runs", help="root of the episode folders")
    p.add_argument("--out", help="episode directory (default: RUNS/CORPUS/human/COND/GAME)")
    p.add_argument("--games-dir", default="results/games", help="where games are acquired")
    p.add_argument(
        "--steps", type=step_count, help="stop after N steps (default: the paper's caps)"
    )
    p.add_argument("--wall-timeout", type=float, default=3600.0, help="seconds per episode")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free)")
    p.add_argument("--secret", default=DEFAULT_SECRET, help="the study's pseudonym key file")
    p.add_argument("--sandbox", choices=("bwrap", "apptainer"), default="bwrap")
    p.set_defaults(func=_play)

    r = hs.add_parser(
        "rate",
        help="serve the rating page: raters answer the milestone questions per video",
        description="Raters answer the judges' milestone questions for each blinded video; "
        "answers are added to RATINGS.csv (the format of `playsuite agreement`).",
    )
    r.add_argument(
        "--raters", required=True, help="the raters' list (results/validation/raters.csv)"
    )
    r.add_argument("--ratings", required=True, help="ratings CSV to add answers to")
    r.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free)")
    r.add_argument("--secret", default=DEFAULT_SECRET, help="the study's pseudonym key file")
    r.set_defaults(func=_rate)

    s = hs.add_parser(
        "sample",
        help="draw the validation set from play shard manifests (as rule validation_sample)",
    )
    s.add_argument("manifests", nargs="+", help="play shard manifests (manifest.tsv)")
    s.add_argument(
        "--per-corpus", nargs="+", help="CORPUS=N ... (default: validation.per_corpus's)"
    )
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", default="results/validation", help="folder of the set")
    s.set_defaults(func=_sample)
