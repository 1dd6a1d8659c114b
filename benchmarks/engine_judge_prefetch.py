"""Judge throughput (videos per minute) of one judge job with video prefetch on and off.

One server of the tiny Video-LLM judge (``tiny-judge``: vLLM's CPU build, random weights) judges
the same videos in several rounds through ``playsuite.judge.run.judge_shard``, the code of a judge
job given the socket of a running server: ``max_num_seqs`` requests in flight, schema-constrained
answers, one judgement file per video. Rounds alternate the mode in an ABBA order (off, on, on,
off, ...) so that a drift in the machine's load falls on both modes alike:

* prefetch on: the job's default, up to ``max_num_seqs`` more videos prepared (decoded at 1 fps,
  resized to 512x288, re-encoded) while the requests are in flight;
* prefetch off (``JudgeOptions(prefetch=0)``): a video is prepared only once a request slot is
  free for it, so that slot waits for the decoding.

Printed: each round's wall time, videos/min, mean preparation and request times (wall seconds
per video) and the CPU seconds the job's own process used (preparation, mostly; the server is a
separate process), then each mode's videos/min over its rounds and the ratio on/off. The
paper's pipeline work (prefetching among it) took its judge from 160 to 370 videos per GPU-hour.

The videos record of the scripted test game (playsuite.testing.synthetic_episode) through the
harness's own writer, 300 s by default (the paper's itch.io run length), distinct per video,
made once and cached. They are recorded at 1 fps: the recorder puts a keyframe at every second
and the judge decodes keyframes only, so preparing one costs about what it costs for a 30 fps
recording (compare benchmarks/judge_frame.py) while making it costs far less. Judging the same
videos again would let the server skip work through its prefix and multimodal caches, favouring
later rounds; the server is therefore started with both caches off (``--keep-caches`` leaves them
on), so every round costs the server what the first one did.

    .venv/bin/python benchmarks/engine_judge_prefetch.py [--videos 24] [--rounds 4]
        [--seconds 300]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import yaml
from engine_common import add_engine_args, engine_server, machine

from playsuite.judge.run import JudgeOptions, judge_shard
from playsuite.records.episode import episode_finished
from playsuite.registry import load_registry
from playsuite.testing.synthetic_episode import Script, write_episode

ABBA = ("off", "on", "on", "off")
NO_CACHES = ("--no-enable-prefix-caching", "--mm-processor-cache-gb", "0")


def make_videos(root: Path, count: int, seconds: float, fps: float) -> tuple[list[Path], Path]:
    """``count`` distinct episodes under ``root`` (made once) and their corpus table."""
    runs = root / f"s{seconds:g}-fps{fps:g}" / "runs" / "local" / "scripted" / "k0-hz0.33-base"
    dirs = []
    for i in range(count):
        path = runs / f"v{i:03d}"
        if not episode_finished(path):
            rng = random.Random(i)
            steps = {0.0: [{"kind": "wait"}], 3.0: [{"kind": "key", "keys": ["enter"]}]}
            t = 6.0
            while t < seconds:
                key = rng.choice(["left", "right", "right", "space", "z"])
                steps[t] = [{"kind": "hold", "keys": [key], "seconds": rng.choice([0.5, 1, 2])}]
                t += 3.0
            write_episode(path, Script(seconds=seconds, fps=fps, steps=steps))
        dirs.append(path)
    table = runs.parent.parent.parent.parent / f"games-{count}.yaml"
    rows = [
        {
            "id": d.name,
            "title": f"Scripted game {d.name}",
            "source": "local",
            "package": "scripted",
            "runtime": "pygame",
            "entry": "main.py",
            "description": "Leave the title screen, move right into a second area, jump to score.",
        }
        for d in dirs
    ]
    table.write_text(yaml.safe_dump({"games": rows}))
    return dirs, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_engine_args(parser, "tiny-judge")
    parser.add_argument("--videos", type=int, default=24, help="videos judged per round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds, modes in ABBA order")
    parser.add_argument("--seconds", type=float, default=300.0, help="length of each video")
    parser.add_argument("--fps", type=float, default=1.0, help="recording rate of the videos")
    parser.add_argument("--cache", default="/tmp/playsuite-bench-engine/judge-videos")
    parser.add_argument("--keep-caches", action="store_true", help="server caches left on")
    args = parser.parse_args()
    judge = load_registry().judge(args.preset)
    concurrency = int(judge.serve.get("max_num_seqs", 8))
    print(f"machine: {machine()}")
    started = time.perf_counter()
    videos, table = make_videos(Path(args.cache), args.videos, args.seconds, args.fps)
    print(
        f"{len(videos)} videos of {args.seconds:g} s (scripted game, 640x480) ready in "
        f"{time.perf_counter() - started:.1f} s; judge {judge.name}, {concurrency} requests in "
        f"flight, server caches {'on' if args.keep_caches else 'off'}"
    )
    modes = [ABBA[r % len(ABBA)] for r in range(args.rounds)]
    rows = []
    extra = () if args.keep_caches else NO_CACHES
    with engine_server(judge, args, extra=extra) as (_, uds):
        out_root = Path(uds).parent / "judgements"
        print(
            f"{'round':>5} {'prefetch':>8} {'wall s':>7} {'videos/min':>10} {'ok':>4} "
            f"{'prepare s':>9} {'request s':>9} {'job cpu s':>9}"
        )
        for r, mode in enumerate(modes):
            jobs = [(d, out_root / f"r{r}" / f"{d.name}.json") for d in videos]
            options = JudgeOptions(
                catalog={"local": str(table)}, uds=uds, prefetch=0 if mode == "off" else None
            )
            t0, c0 = time.perf_counter(), time.process_time()
            counts = judge_shard(judge.name, jobs, options)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            outs = [json.loads(path.read_text()) for _, path in jobs]
            prepare = [o["prepare_s"] for o in outs if "prepare_s" in o]
            request = [o["latency_s"] for o in outs if "latency_s" in o]
            rows.append((mode, wall, len(outs)))
            print(
                f"{r + 1:>5} {mode:>8} {wall:>7.1f} {len(outs) / wall * 60:>10.2f} "
                f"{counts.get('ok', 0):>4} {sum(prepare) / max(len(prepare), 1):>9.2f} "
                f"{sum(request) / max(len(request), 1):>9.2f} {cpu:>9.1f}"
            )
            failed = {k: v for k, v in counts.items() if k != "ok"}
            if failed:
                errors = {o.get("error") for o in outs if o["status"] != "ok"}
                print(f"      not ok: {failed}; errors: {sorted(map(str, errors))[:3]}")
    rate = {}
    for mode in ("off", "on"):
        wall = sum(w for m, w, _ in rows if m == mode)
        n = sum(k for m, _, k in rows if m == mode)
        if wall:
            rate[mode] = n / wall * 60
            print(f"prefetch {mode:>3}: {n} videos in {wall:.1f} s = {rate[mode]:.2f} videos/min")
    if len(rate) == 2:
        print(f"ratio on/off: {rate['on'] / rate['off']:.2f}")


if __name__ == "__main__":
    main()
