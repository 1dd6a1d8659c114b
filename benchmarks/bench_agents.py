"""Agent-side cost per step: prompt rendering, history, text detection, baseline policies.

All of it runs while game time is frozen, but it runs on the CPU cores that the game workers
share (8 workers per node by default), so the explorer's per-step cost decides how many baseline
episodes a laptop can play. Prints milliseconds per call; compare with the 3 s (0.33 Hz) and
333 ms (3 Hz) steps of game time.

    .venv/bin/python benchmarks/bench_agents.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from playsuite.agents.baselines import ExplorerPolicy, RandomPolicy
from playsuite.agents.history import History, entry_from_response
from playsuite.agents.policy import StepRequest
from playsuite.agents.prompts import EpisodePrompt
from playsuite.agents.vision import screen_changed, text_regions
from playsuite.registry import load_registry

GAME = {
    "id": "bench",
    "title": "Bench Game",
    "author": "Someone",
    "genre": "Action",
    "tags": ["Platformer"],
    "description": "<p>" + "A long developer description with <b>markup</b>. " * 40 + "</p>",
    "controls": "Arrow keys move, Z jumps, X shoots, mouse aims.",
}


def menu(width: int, height: int) -> np.ndarray:
    img = Image.new("RGB", (width, height), (20, 30, 70))
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=max(14, height // 20))
    for i, label in enumerate(("New Game", "Options", "Quit")):
        draw.text((width // 2 - 60, height // 3 + i * height // 8), label, font=font, fill="white")
    rng = np.random.default_rng(0)
    frame = np.array(img)
    frame[-height // 5 :, : width // 3] = rng.integers(0, 256, (height // 5, width // 3, 3))
    return frame


def per_call_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm up
    started = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - started) / repeat * 1000


def main() -> None:
    registry = load_registry()
    prompt = EpisodePrompt.for_run(registry.preset("qwen3-vl-8b"), "k3-hz0.33-strategy", GAME)
    history = History(3)
    for step in range(3):
        history.add(entry_from_response(step, 3.0 * step, "Observation: o\nStrategy: s\nAction: z"))
    print(f"{'what':<44}{'ms/call':>10}")
    print(
        f"{'render standard+strategy prompt, k=3':<44}"
        f"{per_call_ms(lambda: prompt.render((800, 600), history=history), 500):>10.3f}"
    )
    text = "Observation: a menu.\nStrategy: start.\nReasoning: click it.\nAction: CLICK: 10, 20"
    print(
        f"{'history entry from a response':<44}"
        f"{per_call_ms(lambda: entry_from_response(0, 0.0, text), 2000):>10.3f}"
    )
    for width, height in ((400, 300), (800, 600), (1280, 720), (1920, 1080)):
        frame = menu(width, height)
        other = frame.copy()
        other[10:40, 10:40] = 255
        found = len(text_regions(frame))
        print(
            f"{f'text_regions {width}x{height} ({found} found)':<44}"
            f"{per_call_ms(lambda f=frame: text_regions(f), 20):>10.1f}"
        )
        print(
            f"{f'screen_changed {width}x{height}':<44}"
            f"{per_call_ms(lambda f=frame, o=other: screen_changed(f, o), 50):>10.1f}"
        )
        requests = [StepRequest(frame, GAME, s, 3.0 * s, (width, height), "") for s in range(40)]
        explorer = ExplorerPolicy(seed=0)
        it = iter(requests)
        print(
            f"{f'explorer step, still menu {width}x{height}':<44}"
            f"{per_call_ms(lambda e=explorer, i=it: e.act(next(i)), 30):>10.1f}"
        )
        rng = np.random.default_rng(1)
        moving = [rng.integers(0, 4, (height, width, 3), dtype=np.uint8) * 64 for _ in range(40)]
        moving_requests = iter(
            StepRequest(f, GAME, s, 3.0 * s, (width, height), "") for s, f in enumerate(moving)
        )
        explorer = ExplorerPolicy(seed=0)
        print(
            f"{f'explorer step, changing screen {width}x{height}':<44}"
            f"{per_call_ms(lambda e=explorer, i=moving_requests: e.act(next(i)), 30):>10.1f}"
        )
    random_policy = RandomPolicy(seed=0)
    request = StepRequest(menu(800, 600), GAME, 0, 0.0, (800, 600), "")
    print(f"{'random step':<44}{per_call_ms(lambda: random_policy.act(request), 2000):>10.3f}")


if __name__ == "__main__":
    main()
