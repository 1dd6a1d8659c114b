"""Rule validate_launch_block's job: a block of acquired games validated in one job, a verdict
per game beside its files, games validated before left as they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from playsuite.planning.jobs import validate_launch_block_job
from playsuite.records.launch import read_block
from playsuite.runtimes.acquire import acquire
from tests.runtimes.conftest import REPO, fixture_game

pytestmark = [pytest.mark.games, pytest.mark.slow]


def test_a_block_validates_each_game_once_and_lists_every_verdict(tmp_path: Path) -> None:
    """Two workers: the two fresh games are validated side by side, each in its own process."""
    fresh = fixture_game("probe_game", screen="320x240")
    menu = fixture_game("mouse_menu_game", screen="320x240")
    earlier = fixture_game("quit_game", screen="320x240")
    block = (fresh, menu, earlier)
    catalog = tmp_path / "corpus.yaml"
    catalog.write_text(yaml.safe_dump({"games": [g.to_dict() for g in block]}))
    games = tmp_path / "results/games"
    for game in block:
        acquire(game, games, base_dir=REPO)
    # A killed block job left one verdict: the rerun keeps it instead of playing the game again.
    kept = {"game": earlier.id, "ok": False, "error": "validated before"}
    (games / earlier.id / "launch.json").write_text(json.dumps(kept))
    log = tmp_path / "logs/validate/blocks/t/s0000.log"
    log.parent.mkdir(parents=True)
    out = tmp_path / "block.launch.tsv"

    validate_launch_block_job(
        str(catalog),
        [str(games / g.id / "acquired.json") for g in block],
        str(out),
        str(log),
        str(tmp_path / "logs/validate"),
        workers=2,
    )

    assert [r["game"] for r in read_block(out)] == [g.id for g in block]  # the block's order
    rows = {r["game"]: r for r in read_block(out)}
    assert rows[fresh.id]["ok"] == "true" and rows[menu.id]["ok"] == "true", rows
    assert rows[earlier.id] == {"game": earlier.id, "ok": "false", "error": "validated before"}
    verdict = json.loads((games / fresh.id / "launch.json").read_text())
    assert verdict["ok"] is True and verdict["game"] == fresh.id
    assert json.loads((games / earlier.id / "launch.json").read_text()) == kept
    for game in (fresh, menu):
        assert (tmp_path / f"logs/validate/{game.id}.log").is_file()  # as rule validate_launch's
        assert f"{game.id}: ok" in log.read_text()
    assert f"{earlier.id}: failed" in log.read_text()
