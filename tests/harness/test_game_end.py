"""How an episode of a real pygame game ends (issue #16, defects 4 and 6).

A game that quits through its own menu is an episode that ended cleanly (status ``ok``), and
the game's own output survives the run's scratch folder: the episode directory keeps its log.
"""

from __future__ import annotations

import json
import subprocess
import sys
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
PLAYSUITE = str(Path(sys.executable).with_name("playsuite"))


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


@pytest.mark.slow
def test_playsuite_play_keeps_the_log_of_a_crashed_game(tmp_path: Path) -> None:
    """`playsuite play` plays in a scratch folder it deletes afterwards: the crash's traceback
    must survive in the episode directory, whole, not only as meta.json's short tail."""
    row = {
        "id": "crasher",
        "title": "Probe game",
        "source": "local",
        "package": str(REPO / "tests" / "fixtures" / "probe_game"),
        "runtime": "pygame",
        "entry": "main.py",
        "args": ["--crash-after", "20"],
    }
    catalog = tmp_path / "games.yaml"
    catalog.write_text(json.dumps({"games": [row]}))  # JSON is YAML
    out = tmp_path / "runs" / "crasher"
    command = [PLAYSUITE, "play", "--game", "crasher", "--catalog", str(catalog)]
    command += ["--agent", "random", "--steps", "2", "--out", str(out)]
    command += ["--games-dir", str(tmp_path / "games")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert result.returncode == 0, result.stderr
    meta = json.loads((out / "meta.json").read_text())
    assert meta["status"] == "crashed", meta
    log = (out / GAME_LOG_NAME).read_text()
    assert "Traceback (most recent call last)" in log and "crashed on purpose" in log
    assert 'File "/game/main.py"' in log  # the whole traceback, its start included
