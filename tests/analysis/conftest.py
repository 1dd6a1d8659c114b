"""Fixtures for the analysis tests: a real episode directory (PyAV video, trace, meta, judge)."""

from __future__ import annotations

import json
from pathlib import Path

import av
import numpy as np
import pytest

FPS = 10
SECONDS = 12


def write_episode(ep: Path, game: str = "tiny-game", preset: str = "random") -> Path:
    """A 12 s H.264 video whose brightness encodes time, and a trace of one step per 3 s."""
    ep.mkdir(parents=True, exist_ok=True)
    with av.open(str(ep / "episode.mp4"), "w") as c:
        s = c.add_stream("libx264", rate=FPS)
        s.width, s.height, s.pix_fmt = 160, 96, "yuv420p"
        for i in range(FPS * SECONDS):
            img = np.full((96, 160, 3), (i * 2) % 256, np.uint8)
            for p in s.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    steps = []
    for k in range(SECONDS // 3):
        steps.append(
            {
                "step": k,
                "t_game": 3.0 * k,
                "frame": 3 * FPS * k,
                "response": f"I press space </script><b>{k}</b>",
                "actions": [{"kind": "key", "keys": ["space"]}],
                "invalid": k == 2,
                "latency_s": 0.5,
            }
        )
    (ep / "trace.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    meta = {
        "game": game,
        "preset": preset,
        "condition": "k0-hz0.33-base",
        "seed": 0,
        "status": "ok",
        "error": None,
        "fps": FPS,
        "steps": len(steps),
        "frames": FPS * SECONDS,
    }
    (ep / "meta.json").write_text(json.dumps(meta))
    return ep


def write_judgement(path: Path, level: int = 2) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    obj = {
        "gameplay_happened": True,
        "milestones": [
            {"t_sec": 2.0, "field": "left_menu_into_gameplay", "on_screen": "level 1 starts"},
            {"t_sec": 7.0, "field": "score_or_resource_increased", "on_screen": "score 10"},
        ],
        "level": level,
        "judge": "frame",
    }
    path.write_text(json.dumps(obj))
    return path


@pytest.fixture
def episode(tmp_path: Path) -> Path:
    return write_episode(tmp_path / "runs" / "local" / "random" / "k0-hz0.33-base" / "tiny-game")


@pytest.fixture
def make_episode():
    """The episode writer, for tests that need several episodes."""
    return write_episode


@pytest.fixture
def make_judgement():
    return write_judgement
