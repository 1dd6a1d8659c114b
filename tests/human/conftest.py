"""Fixtures of the human pages: a real Chromium and a real pygame game to play."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from playsuite.corpus import GameEntry
from playsuite.runtimes.browser_runtime import CHROMIUM, CHROMIUM_ARGS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        yield b
        b.close()


@pytest.fixture
def probe_game(probe_row: dict) -> GameEntry:
    return GameEntry.from_dict(probe_row)


@pytest.fixture
def probe_row() -> dict:
    """The probe fixture game's corpus row: Space scores, a left click leaves a mark, arrows
    move; its probes read the score, the marks and the square's position."""
    return {
        "id": "probe-game",
        "title": "Probe game",
        "source": "local",
        "package": str(REPO / "tests" / "fixtures" / "probe_game"),
        "runtime": "pygame",
        "entry": "main.py",
        "controls": "Arrow keys move the square, Space scores a point.",
        "probes": {
            "score": "main['score']",
            "marks": "len(main['marks'])",
            "x": "main['x']",
            "mark": "str(main['marks'][-1]) if main['marks'] else ''",
        },
    }
