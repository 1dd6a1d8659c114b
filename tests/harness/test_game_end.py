"""How an episode of a real pygame game ends (issue #16, defects 4 and 6).

A game that quits through its own menu is an episode that ended cleanly (status ``ok``), and
the game's own output survives the run's scratch folder: the episode directory keeps its log.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, run_episode
from playsuite.records.episode import GAME_LOG_NAME
from playsuite.registry import load_registry
from playsuite.runtimes.acquire import acquire
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from playsuite.testing.fakes import FakePolicy

REPO = Path(__file__).resolve().parents[2]


def reply(action: str) -> str:
    return f"Observation: a menu.\nReasoning: leave.\nAction: {action}"


@pytest.mark.parametrize("how", ["quit", "linger"])
def test_a_game_quit_from_its_menu_ends_cleanly_and_keeps_its_log(tmp_path: Path, how: str) -> None:
    game = GameEntry.from_dict(
        {
            "id": "quit-game",
            "title": "Quit game",
            "source": "local",
            "package": str(REPO / "tests" / "fixtures" / "quit_game"),
            "runtime": "pygame",
            "entry": "main.py",
            "args": ["--how", how],
        }
    )
    files = acquire(game, tmp_path / "games").files
    work = tmp_path / "work"
    work.mkdir()
    spec = EpisodeSpec(
        corpus="test",
        game=game,
        preset=load_registry().preset("internvl3.5-8b"),
        condition=Condition.parse("k0-hz1-base"),
        out_dir=tmp_path / "episode",
        runtime_options=RuntimeOptions(workdir=work, game_dir=files, slice_timeout_s=10.0),
        limits=EpisodeLimits(max_steps=6, wall_timeout_s=60.0),
    )
    policy = FakePolicy([reply("down"), reply("enter"), reply("wait")])
    meta = run_episode(spec, policy, make_runtime)
    assert (meta["status"], meta["steps"]) == ("ok", 2), meta  # its own end, not "crashed"
    assert meta["error"] == "the game quit by itself" and meta["stop_reason"] == ""
    assert json.loads((spec.out_dir / "meta.json").read_text()) == meta
    log = (spec.out_dir / GAME_LOG_NAME).read_text()
    assert f"quit_game: menu ready (quits by {how})" in log and "quit_game: goodbye" in log
