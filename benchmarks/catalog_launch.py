"""Launch dry-run cost per candidate: acquisition (triage + safe extraction) and the real launch
validation in the sandbox, on the sample corpus's triage survivors.

Paper scale: about 5,700 candidates reach the launch stage; this prints wall seconds per game and
per runtime, and the core-hours the stage would take at that rate.

    .venv/bin/python benchmarks/catalog_launch.py [--timeout 15] [--games itch-1001,...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from playsuite.catalog.curate import (
    candidates,
    step_ingest,
    step_screen,
    step_triage,
    triage_survivors,
)
from playsuite.catalog.launch import step_launch

DATA = Path(__file__).resolve().parents[1] / "tests/data/catalog"
PAPER_CANDIDATES = 5_734


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=15.0, help="launch timeout (s)")
    parser.add_argument("--games", default="", help="comma-separated ids (default: all)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="launch-bench-") as tmp:
        work = Path(tmp)
        records, screen, triage = work / "records.jsonl", work / "screen.tsv", work / "tri.jsonl"
        exclusions = str(DATA / "exclusions.tsv")
        step_ingest(
            {"itch": str(DATA / "itch_sample.jsonl"), "pyweek": str(DATA / "pyweek_sample.csv")},
            records,
        )
        step_screen(records, exclusions, None, screen)
        archives = dict(candidates(records, screen, str(DATA / "mirror")))
        step_triage(records, archives, None, exclusions, triage, threads=2)
        games = triage_survivors(triage)
        if args.games:
            games = [g for g in games if g in args.games.split(",")]
        by_runtime: dict[str, list[float]] = defaultdict(list)
        print(f"{'game':22} {'runtime':8} {'wall_s':>7} {'launch_s':>8}  verdict")
        for game in games:
            started = time.perf_counter()
            result = step_launch(
                records,
                triage,
                game,
                archives[game],
                work / "launch" / f"{game}.json",
                timeout_s=args.timeout,
            )
            wall = time.perf_counter() - started
            by_runtime[result["runtime"]].append(wall)
            verdict = "ok" if result.get("ok") else f"{result['status']}: {result['error'][:60]}"
            launch = result.get("launch_s")
            launch_text = f"{launch:8.2f}" if launch is not None else f"{'-':>8}"
            print(f"{game:22} {result['runtime']:8} {wall:7.1f} {launch_text}  {verdict}")
    print()
    every = [w for walls in by_runtime.values() for w in walls]
    for runtime, walls in sorted(by_runtime.items()):
        print(f"{runtime:8} games {len(walls):2}  median {statistics.median(walls):5.1f} s")
    if every:
        mean = statistics.mean(every)
        print(
            f"mean {mean:.1f} s per candidate -> {PAPER_CANDIDATES} candidates "
            f"~ {PAPER_CANDIDATES * mean / 3600:.0f} core-hours (one dry-run per core)"
        )


if __name__ == "__main__":
    main()
