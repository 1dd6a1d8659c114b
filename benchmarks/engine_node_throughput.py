"""Node throughput (episodes/hour) for W = 1, 2, 4 workers against the real engine.

The engine counterpart of benchmarks/harness_throughput.py (which serves the stand-in with a
fixed latency): real node jobs (``playsuite.harness.node.run_shard``) play the same copies of the
probe fixture game (a real pygame program) with a tiny preset served by vLLM's CPU build, one
server per job started by the job itself exactly as on a cluster node. Per worker count, printed:

* the job's wall time and how much of it came before the first episode started (server start,
  worker spawn);
* episodes/hour over the play phase (first episode start to last episode end, from each
  episode's ``meta.json``: its end time and ``wall_s``), the node's steady rate, and its scaling
  against W = 1, i.e. rate(W) / (W x rate(1)): 1.00 is perfect;
* episodes/hour over the whole job (server start included, what one short job costs);
* the model's mean seconds per step as the workers saw it, and the episodes' statuses.

The tiny model's answers are noise (random weights): the actions parse as invalid and are
executed as no-ops, and answers usually run to the preset's ``max_tokens`` (``--max-tokens``
overrides it), so the model's time per step is what the server needs to generate that many
tokens, not what a trained model would take.

    .venv/bin/python benchmarks/engine_node_throughput.py [--steps 4] [--episodes 8]
        [--workers 1,2,4] [--preset tiny-qwen2.5-vl]
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import tempfile
import time
from pathlib import Path

from engine_common import add_engine_args, machine, tiny_model, vllm_command
from harness_throughput import probe_games

from playsuite.config import Condition
from playsuite.harness.cli import limits_for
from playsuite.harness.node import ServerSettings, ShardJob, run_shard
from playsuite.records.episode import META_NAME, read_meta
from playsuite.registry import load_registry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_engine_args(parser, "tiny-qwen2.5-vl")
    parser.add_argument("--steps", type=int, default=4, help="steps per episode")
    parser.add_argument("--episodes", type=int, default=8, help="episodes per worker count")
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--max-tokens", type=int, default=None, help="override preset sampling")
    args = parser.parse_args()

    preset = load_registry().preset(args.preset)
    if args.max_tokens is not None:
        preset = dataclasses.replace(
            preset, sampling={**preset.sampling, "max_tokens": args.max_tokens}
        )
    model = tiny_model(preset, args)
    work = Path(tempfile.mkdtemp(prefix="playsuite-bench-engine-"))
    games = probe_games(work, args.episodes)
    print(f"machine: {machine()}")
    print(
        f"{preset.name} on vLLM's CPU build, max_tokens {preset.sampling.get('max_tokens')}; "
        f"{args.steps} steps/episode, {args.episodes} episodes per run (probe game, pygame "
        "runtime, k0 at 0.33 Hz); one server per run"
    )
    print(
        f"{'W':>3} {'job s':>7} {'before s':>8} {'play s':>7} {'episodes/h':>10} {'scaling':>8} "
        f"{'job ep/h':>8} {'model s/step':>12}  statuses"
    )
    base = None
    for workers in [int(w) for w in args.workers.split(",")]:
        runs = work / f"runs-w{workers}"
        job = ShardJob(
            corpus="bench",
            preset=preset,
            condition=Condition.parse("k0-hz0.33-base"),
            games=games,
            runs_dir=runs,
            games_dir=work / "games",
            workers=workers,
            limits_by_runtime=limits_for(args.steps, 600),
            server=ServerSettings.from_schema(
                vllm=vllm_command(args), model=model, ready_timeout_s=args.ready_timeout
            ),
            live=False,
        )
        started_wall = time.time()
        started = time.perf_counter()
        code = run_shard(job, runs / "manifest.tsv")
        wall = time.perf_counter() - started
        if code:
            raise SystemExit(f"W={workers}: node job failed (exit {code}); logs in {runs}/logs")
        ends, begins, model_s, steps = [], [], [], 0
        statuses: collections.Counter[str] = collections.Counter()
        for game in games:
            meta_path = runs / game.id / META_NAME
            meta = read_meta(runs / game.id)
            end = meta_path.stat().st_mtime
            ends.append(end)
            begins.append(end - meta["wall_s"])
            model_s.append(meta["model_s"])
            steps += meta["steps"]
            statuses[meta["status"]] += 1
        play = max(ends) - min(begins)
        rate = len(games) / play * 3600
        base = base or rate
        per_step = sum(model_s) / max(steps, 1)
        print(
            f"{workers:>3} {wall:>7.1f} {min(begins) - started_wall:>8.1f} {play:>7.1f} "
            f"{rate:>10.0f} {rate / base / workers:>7.2f}x {len(games) / wall * 3600:>8.0f} "
            f"{per_step:>12.2f}  {dict(statuses)}"
        )
    print(f"episode directories and logs: {work}")


if __name__ == "__main__":
    main()
