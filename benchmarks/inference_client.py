"""Client throughput through one Unix socket at concurrency 1, 2, 4, 8.

A node's game workers share one model server through one :class:`InferenceClient`; the client
must not serialise them. Against the stand-in server with a fixed simulated latency (0.2 s by
default, the order of a small VLM's answer), requests per second should grow almost linearly with
concurrency: anything well below that is overhead in the client (locks, connection pool) or in
building requests. Each request carries one encoded game frame, as an agent step does. Also
prints the cost of encoding a frame and the stand-in's time to readiness.

    .venv/bin/python benchmarks/inference_client.py [--latency 0.2] [--requests 32]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from playsuite.inference import InferenceClient, VLLMServer, image_data_url
from playsuite.inference.messages import user_message
from playsuite.testing.standin import standin_argv


def _frame(width: int, height: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    frame = np.zeros((height, width, 3), np.uint8)
    frame[: height // 2] = (40, 60, 160)  # sky
    frame[height // 2 :] = (30, 120, 40)  # ground
    # a textured quarter (foliage, particles): real frames do not compress to nothing
    frame[height // 2 :, : width // 2] = rng.integers(0, 255, (height - height // 2, width // 2, 3))
    for _ in range(30):  # sprites
        x, y = int(rng.integers(width - 32)), int(rng.integers(height - 32))
        frame[y : y + 32, x : x + 32] = rng.integers(0, 255, 3, dtype=np.uint8)
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.2, help="stand-in seconds per answer")
    parser.add_argument("--requests", type=int, default=32, help="requests per concurrency level")
    parser.add_argument("--frame", default="640x480", help="frame size sent with each request")
    parser.add_argument("--levels", default="1,2,4,8")
    args = parser.parse_args()
    width, height = (int(v) for v in args.frame.lower().split("x"))
    levels = [int(v) for v in args.levels.split(",")]

    frame = _frame(width, height)
    started = time.perf_counter()
    for _ in range(10):
        url = image_data_url(frame)
    encode_ms = (time.perf_counter() - started) / 10 * 1000
    print(f"frame {width}x{height}: PNG data URL {len(url) / 1024:.0f} KiB, {encode_ms:.1f} ms")
    messages = [user_message("Play the game.", images=[url])]

    with tempfile.TemporaryDirectory(prefix="psb-", dir="/tmp") as tmp:
        uds = str(Path(tmp) / "m.sock")
        argv = standin_argv(uds, latency_s=args.latency, policy="explorer")
        with VLLMServer(argv, uds, poll_interval_s=0.02) as server:
            print(f"stand-in ready in {server.ready_s:.2f} s; simulated latency {args.latency} s")
            print(f"{'conc':>4} {'req/s':>7} {'ideal':>7} {'eff':>5} {'mean ms':>8} {'p95 ms':>7}")
            base = None
            for level in levels:
                with InferenceClient(uds, "standin", max_concurrency=level) as client:
                    client.chat(messages)  # open the connection outside the timing
                    with ThreadPoolExecutor(level) as pool:
                        t0 = time.perf_counter()
                        results = list(
                            pool.map(lambda _: client.chat(messages), range(args.requests))
                        )
                        wall = time.perf_counter() - t0
                rate = args.requests / wall
                base = base or rate
                ideal = level / args.latency
                latencies = sorted(r.latency_s * 1000 for r in results)
                p95 = latencies[int(0.95 * (len(latencies) - 1))]
                print(
                    f"{level:>4} {rate:>7.2f} {ideal:>7.2f} {rate / ideal:>5.0%} "
                    f"{statistics.mean(latencies):>8.1f} {p95:>7.1f}"
                )


if __name__ == "__main__":
    main()
