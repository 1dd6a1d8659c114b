"""Fixtures of the horizon tests: hand-written annotations (exact, for the question builder and
the tables) and real recorded episodes of the scripted game (for the annotator)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from playsuite.records.horizon import HORIZON_FORMAT, write_annotation
from playsuite.testing.synthetic_episode import playing_script, write_episode


def annotation(game: str, tag: str, goals: list[list[tuple[str, str]]]) -> dict[str, Any]:
    """An ok annotation: ``goals`` lists each goal's operations as (instruction, inputs); one
    strategy over all goals; each operation lasts 3 s."""
    operations, spans = [], []
    t = 0.0
    for g, members in enumerate(goals):
        children = []
        for instruction, inputs in members:
            n = len(operations)
            operations.append(
                {
                    "id": f"o{n}",
                    "start_step": n,
                    "end_step": n + 1,
                    "t_start": t,
                    "t_end": t + 3,
                    "label": "discrete:key",
                    "actions": [inputs],
                    "frames": [int(t), int(t) + 1],
                    "instruction": instruction,
                }
            )
            children.append(f"o{n}")
            t += 3
        first = operations[int(children[0][1:])]["t_start"]
        spans.append(
            {
                "id": f"g{g}",
                "children": children,
                "t_start": first,
                "t_end": t,
                "frames": [int(first)],
                "instruction": f"{tag} goal {g}",
            }
        )
    return {
        "format": HORIZON_FORMAT,
        "status": "ok",
        "error": None,
        "episode": {"corpus": "local", "preset": "p", "condition": "c", "game": game},
        "annotator": "hand",
        "sample_fps": 1.0,
        "settings": {},
        "operations": operations,
        "goals": spans,
        "strategies": [
            {
                "id": "s0",
                "children": [s["id"] for s in spans],
                "t_start": 0.0,
                "t_end": t,
                "frames": [0],
                "instruction": f"{tag} strategy",
            }
        ],
        "usage": {},
    }


@pytest.fixture
def annotated_dirs(tmp_path: Path) -> Callable[[], list[Path]]:
    """Three annotated episode directories: two of game ``alpha``, one of ``beta``."""

    def make() -> list[Path]:
        docs = {
            "alpha-1": annotation(
                "alpha",
                "A1",
                [
                    [("press enter on the title", "enter"), ("walk right", "hold:right:2.0")],
                    [("jump over the gap", "space"), ("walk left", "hold:left:1.0")],
                ],
            ),
            "alpha-2": annotation(
                "alpha",
                "A2",
                [
                    [("open the menu", "escape"), ("pick the second item", "click:100,200")],
                    [("close the menu", "escape escape"), ("fire", "z")],
                ],
            ),
            "beta-1": annotation(
                "beta", "B1", [[("slide a tile up", "up"), ("slide a tile left", "left")]]
            ),
        }
        out = []
        for name, doc in docs.items():
            folder = tmp_path / "runs" / name
            folder.mkdir(parents=True)
            write_annotation(folder, doc)
            out.append(folder)
        return out

    return make


@pytest.fixture(scope="session")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two recordings of the scripted game (real H.264 video, trace and meta)."""
    root = tmp_path_factory.mktemp("horizon-runs") / "local" / "random" / "k0-hz0.33-base"
    return [write_episode(root / f"toy{i}", playing_script()) for i in range(2)]
