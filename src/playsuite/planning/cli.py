"""``playsuite status``: where a running or finished campaign stands (playsuite.planning.status);
``playsuite dashboard``: its results dashboard, built from a results tree."""

from __future__ import annotations

import argparse
import json
from typing import Any

from playsuite.planning import paths
from playsuite.planning.status import STALE_AFTER_S, campaign_status, render


def register(sub: Any) -> None:
    p = sub.add_parser(
        "status",
        help="per stage and preset: episodes done, running, failed (and why), from results/",
        description="Read a results tree (no Snakemake, no configuration) and print, per stage "
        "(play, judge:NAME) and preset, the episodes done, running and failed, with the most "
        "frequent failure reasons and an example of each.",
    )
    p.add_argument("--results", default=paths.RESULTS, help="results folder (default: results)")
    p.add_argument(
        "--judge-costs",
        default=None,
        help="judge jobs' cost records (analysis.judge_costs; default: RESULTS/judge_costs)",
    )
    p.add_argument(
        "--stale-after",
        type=float,
        default=STALE_AFTER_S,
        help=f"seconds without a heartbeat after which a job is gone (default {STALE_AFTER_S:g})",
    )
    p.add_argument("--reasons", type=int, default=5, help="failure reasons shown per row")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    p.set_defaults(func=_status)

    d = sub.add_parser(
        "dashboard",
        help="one HTML page of a judge's campaign: main table, figures, report, run browser",
        description="Build the results dashboard of one judge's campaign from a results tree "
        "(what rule `dashboard` makes, without Snakemake): the main table, every figure, the "
        "reproduction report and a run browser linking to each episode's inspection page. "
        "Needs the analysis outputs (main table, report, inspection pages) to exist.",
    )
    d.add_argument("--judge", required=True, help="the judge whose scores the campaign is")
    d.add_argument("--results", default=paths.RESULTS, help="results folder (default: results)")
    d.add_argument("--scores", help="scores table (default: RESULTS/scores/JUDGE.tsv)")
    d.add_argument("--out", help="page to write (default: RESULTS/dashboard/JUDGE/index.html)")
    d.set_defaults(func=_dashboard)


def _status(args: argparse.Namespace) -> int:
    status = campaign_status(
        args.results, judge_costs=args.judge_costs, stale_after_s=args.stale_after
    )
    if args.json:
        rows = [
            {"stage": stage, "preset": preset, **tally.as_dict()}
            for (stage, preset), tally in status.items()
        ]
        print(json.dumps(rows, indent=2))
    else:
        print(render(status, reasons=args.reasons), end="")
    return 0


def _dashboard(args: argparse.Namespace) -> int:
    from playsuite.planning.analysis_jobs import dashboard_from_results

    print(dashboard_from_results(args.results, args.judge, scores=args.scores, out=args.out))
    return 0
