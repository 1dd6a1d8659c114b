"""Parser throughput on realistic answers: microseconds per parse, per parser.

A step at 3 Hz leaves 333 ms of game time per action and the parser runs while game time is
frozen, so any figure well under a millisecond is negligible; this prints the figures so that a
regression (a backtracking regex) shows up as a number, not as a hung run.

    .venv/bin/python benchmarks/bench_parsers.py
"""

from __future__ import annotations

import time

from playsuite.actions.parsers import PARSER_NAMES, parse_response

ANSWERS = {
    "standard": "Observation: a platformer level.\nStrategy: explore right.\n"
    "Reasoning: a gap ahead, jump while running.\nAction: hold:right+space:0.5 click:640,360",
    "qwen3": "<think>\nThe button is in the middle.\n</think>\n\nObservation: menu\n"
    "Reasoning: start\nAction: click:500,500",
    "computer_use": 'Action: Click Start.\n<tool_call>\n{"name": "computer_use", '
    '"arguments": {"action": "left_click", "coordinate": [500, 500]}}\n</tool_call>',
    "uitars": "Thought: The START button is in the centre.\nAction: click(start_box='(644,364)')",
    "opencua": "## Thought:\nClick Play.\n\n## Action:\nClick the Play button.\n\n## Code:\n"
    "```python\npyautogui.click(x=644, y=364)\n```",
    "osatlas": "thoughts:\nopen the menu\nactions:\nCLICK <point>[[500,500]]</point>",
    "showui": "{'action': 'CLICK', 'value': None, 'position': [0.5, 0.5]}",
}
PATHOLOGICAL = "Action: " + "space " * 2000  # 2,000 tokens: far beyond a 512-token answer


def per_call_us(parser: str, text: str, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        parse_response(parser, text, (1280, 720))
    return (time.perf_counter() - start) / repeat * 1e6


def main() -> None:
    print(f"{'parser':14} {'typical µs':>11} {'2000-token µs':>14}")
    for name in PARSER_NAMES:
        typical = per_call_us(name, ANSWERS[name], 2000)
        long = per_call_us(name, PATHOLOGICAL, 20)
        print(f"{name:14} {typical:11.1f} {long:14.1f}")


if __name__ == "__main__":
    main()
