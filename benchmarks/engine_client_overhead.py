"""Client overhead against the real engine: `InferenceClient.chat` vs a bare HTTP request.

One server of a tiny preset (vLLM's CPU build, random weights) answers both arms: (A) the
project's client, ``InferenceClient.for_preset(...).chat(messages, ...)``, and (B) a bare httpx
client on the same Unix socket that POSTs the very body A sends (``client.build_body``), checks
the status and reads the answer's text out of the JSON, i.e. the least any client must do. Each
pair runs A and B back to back, in alternating order, one request at a time; wall time is
measured around the call (body building, the semaphore, the retry loop and result parsing
included for A). Printed per request kind: median A and B and their ratio (target <= 1.1), then
the median of the per-pair ratios and of the per-pair differences A - B, which cancel most of
the drift of a shared machine's load, 90th percentiles, and how many pairs got the same text
(they should all: same body, same seed).

Two kinds of request, both at a short ``max_tokens`` so that generation does not drown the
client's share: a text-only prompt (the smallest request the server can answer, the most severe
test) and a typical agent step (the prompt with one 640x480 game frame as a PNG data URL, the
frame of benchmarks/inference_client.py). The body is the same in every request of a kind, so
after the warm-up the server's prefix and image caches make its time as small and as steady as
it gets, which again favours seeing the client's overhead.

    .venv/bin/python benchmarks/engine_client_overhead.py [--pairs 200] [--max-tokens 1]
        [--preset tiny-qwen2.5-vl]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import httpx
from engine_common import add_engine_args, engine_server, machine
from inference_client import _frame as game_frame

from playsuite.inference import InferenceClient, image_data_url
from playsuite.inference.messages import user_message
from playsuite.registry import load_registry

PROMPT = "You are playing a game. Describe the next action as JSON."


def bare_request(http: httpx.Client, body: dict[str, Any]) -> str:
    """The least a client does: POST, check the status, parse, take the first choice's text."""
    response = http.post("/v1/chat/completions", json=body)
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:300]}")
    return response.json()["choices"][0]["message"]["content"] or ""


def timed(call: Callable[[], str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    text = call()
    return time.perf_counter() - t0, text


def measure(
    client: InferenceClient,
    http: httpx.Client,
    messages: list[dict[str, Any]],
    args: argparse.Namespace,
) -> dict[str, Any]:
    body = client.build_body(messages, max_tokens=args.max_tokens, seed=args.seed)

    def arm_a() -> str:
        return client.chat(messages, max_tokens=args.max_tokens, seed=args.seed).text

    def arm_b() -> str:
        return bare_request(http, body)

    for _ in range(args.warmup):  # connections opened, server caches filled, outside the timing
        arm_a()
        arm_b()
    a: list[float] = []
    b: list[float] = []
    same = 0
    for pair in range(args.pairs):
        order = (arm_a, arm_b) if pair % 2 == 0 else (arm_b, arm_a)
        (t1, x1), (t2, x2) = timed(order[0]), timed(order[1])
        ta, tb = (t1, t2) if pair % 2 == 0 else (t2, t1)
        a.append(ta)
        b.append(tb)
        same += x1 == x2
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    return {
        "body_kib": len(httpx.Request("POST", "/", json=body).content) / 1024,
        "a": statistics.median(a),
        "b": statistics.median(b),
        "diff": statistics.median(diffs),
        "pair_ratio": statistics.median(ratios),
        "a_p90": statistics.quantiles(a, n=10)[-1],
        "b_p90": statistics.quantiles(b, n=10)[-1],
        "same": same,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_engine_args(parser, "tiny-qwen2.5-vl")
    parser.add_argument("--pairs", type=int, default=200, help="A/B pairs per request kind")
    parser.add_argument("--warmup", type=int, default=5, help="untimed pairs per request kind")
    parser.add_argument("--max-tokens", type=int, default=1, help="tokens generated per answer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--frame", default="640x480", help="frame size of the typical request")
    args = parser.parse_args()
    width, height = (int(v) for v in args.frame.lower().split("x"))
    preset = load_registry().preset(args.preset)
    print(f"machine: {machine()}")
    kinds = {
        "text only": [user_message(PROMPT)],
        f"one {width}x{height} frame": [
            user_message(PROMPT, images=[image_data_url(game_frame(width, height))])
        ],
    }
    with engine_server(preset, args) as (_, uds):
        client = InferenceClient.for_preset(preset, uds, max_concurrency=1)
        http = httpx.Client(
            transport=httpx.HTTPTransport(uds=uds),
            base_url="http://localhost",
            timeout=httpx.Timeout(600.0, connect=5.0),
        )
        with client, http:
            rows = {kind: measure(client, http, messages, args) for kind, messages in kinds.items()}
    print(
        f"{args.pairs} interleaved pairs per kind, max_tokens {args.max_tokens}, one request "
        "at a time; A = InferenceClient.chat, B = bare httpx, same body and socket"
    )
    print(
        f"{'request':<20}{'body KiB':>9}{'A med ms':>10}{'B med ms':>10}{'A/B':>7}"
        f"{'pair A/B':>9}{'A-B ms':>8}{'A p90':>8}{'B p90':>8}{'same text':>10}"
    )
    for kind, row in rows.items():
        print(
            f"{kind:<20}{row['body_kib']:>9.1f}{row['a'] * 1e3:>10.2f}{row['b'] * 1e3:>10.2f}"
            f"{row['a'] / row['b']:>7.3f}{row['pair_ratio']:>9.3f}{row['diff'] * 1e3:>8.2f}"
            f"{row['a_p90'] * 1e3:>8.1f}{row['b_p90'] * 1e3:>8.1f}{row['same']:>6}/{args.pairs}"
        )


if __name__ == "__main__":
    main()
