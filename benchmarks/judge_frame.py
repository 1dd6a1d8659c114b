"""Frame-judge and preprocessing time for a 300 s episode (the paper's itch.io run length).

Renders a 300 s, 30 fps, 640x480 episode of the scripted test game once (cached under --cache),
then times, as CPU seconds of this process and wall seconds:
  preprocessing  decoding the video and sampling 1 fps at <= 512x288 (shared by both judges)
  frame judge    features + rules on the samples and the trace (target: well under 2 s CPU)
  clip encode    re-encoding the samples as the 1 fps H.264 clip a Video-LLM judge is sent

    .venv/bin/python benchmarks/judge_frame.py [--seconds 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from playsuite.judge.episode import load_episode
from playsuite.judge.frame_judge import judge_frames
from playsuite.judge.video import encode_mp4_bytes, sample_video
from playsuite.records.episode import episode_finished
from playsuite.testing.synthetic_episode import Script, write_episode


def make_episode(path: Path, seconds: float) -> Path:
    if episode_finished(path):
        return path
    rng = random.Random(0)
    steps = {0.0: [{"kind": "wait"}], 3.0: [{"kind": "key", "keys": ["enter"]}]}
    t = 6.0
    while t < seconds:
        key = rng.choice(["left", "right", "right", "space", "z"])
        steps[t] = [{"kind": "hold", "keys": [key], "seconds": rng.choice([0.5, 1.0, 2.0])}]
        t += 3.0
    return write_episode(path, Script(seconds=seconds, fps=30.0, steps=steps))


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=300.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cache", default="/tmp/playsuite-bench-judge")
    args = ap.parse_args()
    path = Path(args.cache) / f"ep{args.seconds:g}"
    _, _, wall = timed(lambda: make_episode(path, args.seconds))
    episode = load_episode(path)
    print(
        f"episode: {args.seconds:g} s at 30 fps, 640x480, {len(episode.steps)} steps ({wall:.1f} s)"
    )
    rows = {"preprocessing": [], "frame judge": [], "clip encode": []}
    for _ in range(args.repeat):
        sampled, cpu, wall = timed(lambda: sample_video(episode.video_path))
        rows["preprocessing"].append((cpu, wall))
        out, cpu, wall = timed(lambda s=sampled: judge_frames(s, episode.steps))
        rows["frame judge"].append((cpu, wall))
        clip, cpu, wall = timed(lambda s=sampled: encode_mp4_bytes(s))
        rows["clip encode"].append((cpu, wall))
    w, h = sampled.size
    print(f"samples: {len(sampled)} at {w}x{h}; clip {len(clip) / 1e3:.0f} kB")
    print(f"frame judge level {out['level']}; responses {out['features']['responses']}")
    print(f"{'stage':<15}{'cpu s (best)':>14}{'wall s (best)':>15}")
    for name, values in rows.items():
        print(f"{name:<15}{min(v[0] for v in values):>14.3f}{min(v[1] for v in values):>15.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
