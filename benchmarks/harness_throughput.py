"""Node throughput (episodes/hour) for W = 1, 2, 4 workers and harness CPU per step.

Runs real node jobs (`playsuite.harness.node.run_shard`) on the probe fixture game (a real
pygame program) against the stand-in model server with a fixed simulated latency, side by side
in one run, and prints episodes/hour, the scaling against W = 1, and the harness's own CPU time
per step (the worker process only: the game and the model server are separate processes).

    .venv/bin/python benchmarks/harness_throughput.py [--latency 1.0] [--steps 6] [--episodes 8]

Targets (issue 4): >= 0.9 x W scaling until CPU-bound; <= 0.6 s CPU per 3 s pygame step.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from playsuite.config import Condition
from playsuite.corpus import load_corpus
from playsuite.files import write_text_atomic
from playsuite.harness.cli import limits_for
from playsuite.harness.node import ServerSettings, ShardJob, run_shard
from playsuite.records.episode import read_meta
from playsuite.registry import load_registry
from playsuite.runtimes.acquire import acquire
from playsuite.testing.standin import standin_argv

REPO = Path(__file__).resolve().parents[1]
PRESET = "internvl3.5-8b"  # any vLLM preset with the standard parser; served by the stand-in


def probe_games(work: Path, count: int) -> list:
    """``count`` copies of the probe fixture game (a real pygame program), acquired under
    ``work/games``; the game rows of the throughput benchmarks."""
    rows = [
        {
            "id": f"probe-{i:02d}",
            "title": "Probe game",
            "source": "local",
            "package": str(REPO / "tests" / "fixtures" / "probe_game"),
            "runtime": "pygame",
            "entry": "main.py",
        }
        for i in range(count)
    ]
    catalog = work / "games.yaml"
    catalog.write_text(yaml.safe_dump({"games": rows}))
    games = load_corpus(catalog)
    for game in games:
        acquire(game, work / "games")
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0, help="simulated model seconds")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--episodes", type=int, default=8, help="episodes per worker count")
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument(
        "--out",
        default="results/benchmarks/throughput.tsv",
        help="TSV for the efficiency figure (workers, episodes_per_hour); '' to skip",
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="playsuite-bench-"))
    games = probe_games(work, args.episodes)
    registry = load_registry()
    argv = standin_argv("{uds}", model=PRESET, latency_s=args.latency)
    print(
        f"cores: {os.cpu_count()}, model latency {args.latency} s, {args.steps} steps/episode, "
        f"{args.episodes} episodes per run (probe game, pygame runtime, k0 at 0.33 Hz)"
    )
    print(f"{'W':>3} {'wall s':>8} {'episodes/h':>11} {'scaling':>8} {'cpu s/step':>11}")
    base = None
    table = ["workers\tepisodes_per_hour\tcpu_s_per_step\tlatency_s"]
    for workers in [int(w) for w in args.workers.split(",")]:
        runs = work / f"runs-w{workers}"
        job = ShardJob(
            corpus="bench",
            preset=registry.preset(PRESET),
            condition=Condition.parse("k0-hz0.33-base"),
            games=games,
            runs_dir=runs,
            games_dir=work / "games",
            workers=workers,
            limits_by_runtime=limits_for(args.steps, 600),
            server=ServerSettings.from_schema(argv=argv, ready_timeout_s=60),
            live=False,
        )
        started = time.perf_counter()
        code = run_shard(job, runs / "manifest.tsv")
        wall = time.perf_counter() - started
        if code:
            raise SystemExit(f"W={workers}: node job failed (exit {code})")
        metas = [read_meta(runs / g.id) for g in games]
        cpu = statistics.mean(m["harness_cpu_s"] / max(m["steps"], 1) for m in metas)
        rate = len(metas) / wall * 3600
        base = base or rate
        print(
            f"{workers:>3} {wall:>8.1f} {rate:>11.0f} {rate / base / workers:>7.2f}x {cpu:>11.3f}"
        )
        table.append(f"{workers}\t{rate:.1f}\t{cpu:.4f}\t{args.latency}")
    if args.out:
        write_text_atomic(args.out, "\n".join(table) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
