"""``playsuite horizon ...``: the annotator and the offline track from the command line."""

from __future__ import annotations

import argparse
import json


def _settings(args: argparse.Namespace) -> dict:
    from playsuite.horizon.annotate import horizon_settings

    section = {}
    if getattr(args, "config", None):
        from playsuite.config import load_yaml

        section = dict((load_yaml(args.config) or {}).get("horizon") or {})
    return horizon_settings(section)


def _serve(args: argparse.Namespace):
    from playsuite.horizon.run import ServeOptions

    return ServeOptions(
        uds=args.uds,
        server_argv=json.loads(args.server_argv) if args.server_argv else None,
        vllm=args.vllm,
        model=args.model,
        server_log=args.server_log,
    )


def _annotate(args: argparse.Namespace) -> int:
    from playsuite.horizon.run import annotate_episodes

    counts = annotate_episodes(
        args.annotator,
        args.episodes,
        _settings(args),
        _serve(args),
        catalogs=args.catalog,
        games_dir=args.games_dir,
        index=args.index,
    )
    print(json.dumps(counts))
    return 0 if not counts.get("failed") else 1


def _questions(args: argparse.Namespace) -> int:
    from playsuite.horizon.questions import build_questions, load_annotated
    from playsuite.records.horizon import read_annotation_index, write_questions

    settings = _settings(args)
    paths = list(args.annotations)
    for index in args.index or ():
        paths += [row["annotation"] for row in read_annotation_index(index)]
    items, failed = load_annotated(paths)
    seed = settings["seed"] if args.seed is None else args.seed
    doc = build_questions(items, seed, float(settings["sample_fps"]), settings["max_per_task"])
    write_questions(args.out, doc)
    print(json.dumps({"episodes": len(items), "failed_annotations": failed, **doc["counts"]}))
    return 0


def _answer(args: argparse.Namespace) -> int:
    from playsuite.horizon.run import answer_file

    counts = answer_file(args.preset, args.questions, args.out, _settings(args), _serve(args))
    print(json.dumps(counts))
    return 0


def _accuracy(args: argparse.Namespace) -> int:
    from playsuite.analysis.bootstrap import BootstrapSpec
    from playsuite.horizon.tables import accuracy_table, write_table
    from playsuite.records.horizon import read_answers

    spec = BootstrapSpec(resamples=args.resamples, seed=args.seed)
    table = accuracy_table([read_answers(p) for p in args.answers], spec)
    for out in args.out or ():
        write_table(table, out)
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return 0


def _correlate(args: argparse.Namespace) -> int:
    import pandas as pd

    from playsuite.horizon.tables import correlation_table, write_table
    from playsuite.records.scores import read_scores_file

    accuracy = pd.read_csv(args.accuracy, sep="\t")
    table = correlation_table(accuracy, read_scores_file(args.scores))
    for out in args.out or ():
        write_table(table, out)
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return 0


def _serve_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--uds", help="socket of a running server (none: the job starts one)")
    p.add_argument("--server-argv", help="JSON list replacing `vllm serve` ({uds}, {preset})")
    p.add_argument("--vllm", help="the vllm command (default: engine.vllm's default)")
    p.add_argument("--model", help="a local model directory replacing the entry's hf_id")
    p.add_argument("--server-log", help="the server's log file")
    p.add_argument("--config", help="a workflow config whose horizon: section sets the settings")


def register(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser(
        "horizon",
        help="multi-horizon annotation and the offline multiple-choice track (GameHorizon)",
        description="Annotate episodes into a pyramid of short operations, medium goals and a "
        "long strategy; build multiple-choice questions from the annotations; have a preset "
        "answer them; tabulate accuracy with game-level CIs and correlate it with online "
        "progress (docs/horizon.md).",
    )
    hs = top.add_subparsers(dest="horizon_command", required=True, metavar="STEP")

    p = hs.add_parser(
        "annotate",
        help="write horizon.json beside each episode",
        description="Segment each episode's trace by its actions, have the served annotator "
        "label each clip, merge clips bottom-up into goals and a strategy, and write the "
        "validated pyramid as horizon.json in the episode directory.",
    )
    p.add_argument("episodes", nargs="+", metavar="EPISODE_DIR")
    p.add_argument("--annotator", required=True, help="a served preset or judge of the registry")
    p.add_argument("--catalog", help="the corpus table of the episodes' games (game context)")
    p.add_argument("--games-dir", help="acquired games (for README contexts)")
    p.add_argument("--index", help="also write the annotation index TSV here")
    _serve_flags(p)
    p.set_defaults(func=_annotate)

    p = hs.add_parser(
        "questions",
        help="build the multiple-choice question set from annotations",
        description="T1 (next inputs, with and without the instruction), T2 (top-down "
        "decomposition, bottom-up abstraction), T3 (cross-horizon consistency); wrong options "
        "from the same game's annotations, seeded.",
    )
    p.add_argument("annotations", nargs="*", metavar="EPISODE_DIR|horizon.json")
    p.add_argument("--index", action="append", help="an annotation index TSV (repeatable)")
    p.add_argument("--seed", type=int, help="default: horizon.seed")
    p.add_argument("--config", help="a workflow config whose horizon: section sets the settings")
    p.add_argument("--out", required=True, help="the question set (JSON)")
    p.set_defaults(func=_questions)

    p = hs.add_parser(
        "answer",
        help="have a preset answer a question set",
        description="Send every question (frames, question, options) to the preset's server "
        "with a constrained A-D answer; write its answers (JSON).",
    )
    p.add_argument("questions", metavar="QUESTIONS.json")
    p.add_argument("--preset", required=True, help="a served preset or judge of the registry")
    p.add_argument("--out", required=True, help="the answers file (JSON)")
    _serve_flags(p)
    p.set_defaults(func=_answer)

    p = hs.add_parser(
        "accuracy",
        help="accuracy per preset and task with game-level bootstrap CIs",
        description="One row per preset and task, and 'all'; failed answers count as wrong.",
    )
    p.add_argument("answers", nargs="+", metavar="ANSWERS.json")
    p.add_argument("--resamples", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", action="append", help="write the table (.tsv or .md; repeatable)")
    p.set_defaults(func=_accuracy)

    p = hs.add_parser(
        "correlate",
        help="Spearman correlation of offline accuracy with online progress",
        description="Per preset: overall offline accuracy (an accuracy TSV) against the mean "
        "progress level of its ok episodes in a judge's scores table.",
    )
    p.add_argument("--accuracy", required=True, help="the accuracy table (TSV)")
    p.add_argument("--scores", required=True, help="a scores table, results/scores/{judge}.tsv")
    p.add_argument("--out", action="append", help="write the table (.tsv or .md; repeatable)")
    p.set_defaults(func=_correlate)
