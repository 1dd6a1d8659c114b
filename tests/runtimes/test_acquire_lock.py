"""Two processes sharing a games cache: the second acquisition of a game waits for the first and
then finds the game acquired, instead of fetching it again and moving the first's files away
while they are in use (workflow runs or test sessions side by side on one cache)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playsuite.locks import exclusive_lock
from playsuite.runtimes.acquire import AcquisitionError, acquire
from tests.runtimes.conftest import REPO, fixture_game

CHILD = """
import json, sys
from playsuite.corpus import GameEntry
from playsuite.runtimes.acquire import AcquisitionError, acquire
game = GameEntry.from_dict(json.loads(sys.argv[1]))
got = acquire(game, sys.argv[2], base_dir=sys.argv[3])
print(json.dumps(got.manifest["acquire_s"]))
"""


def acquire_in_child(game, games: Path) -> subprocess.Popen:
    row = json.dumps(game.to_dict())
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, row, str(games), str(REPO)],
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_second_acquisition_waits_for_the_first_and_reuses_its_game(tmp_path: Path) -> None:
    game = fixture_game("probe_game")
    games = tmp_path / "games"
    games.mkdir()
    with exclusive_lock(games / f".{game.id}.lock"):  # another process is fetching the game
        child = acquire_in_child(game, games)
        time.sleep(3)
        assert child.poll() is None, "the acquisition did not wait for the lock"
        assert not (games / game.id / "acquired.json").exists()
    out, _ = child.communicate(timeout=120)
    assert child.returncode == 0
    fetched = json.loads(out)
    manifest = json.loads((games / game.id / "acquired.json").read_text())
    assert manifest["acquire_s"] == fetched
    # Acquired now: a second process takes it as it is (the first fetch's manifest, unchanged).
    again = acquire_in_child(game, games)
    out, _ = again.communicate(timeout=120)
    assert again.returncode == 0 and json.loads(out) == fetched
    assert acquire(game, games, base_dir=REPO).manifest["acquire_s"] == fetched


def test_an_acquisition_held_too_long_is_a_clear_acquisition_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playsuite.runtimes import acquire as acquire_module

    monkeypatch.setattr(acquire_module, "ACQUIRE_LOCK_WAIT_S", 0.5)
    game = fixture_game("probe_game")
    games = tmp_path / "games"
    games.mkdir()
    busy = pytest.raises(AcquisitionError, match=r"probe-game: pid \d+ .* for over 0.5 s")
    with exclusive_lock(games / f".{game.id}.lock"), busy:
        acquire(game, games, base_dir=REPO)
    assert not (games / game.id).exists()
