"""Whose fault an episode's end is (issue #13, item 5), on real games and real processes.

Only what the game did is a final result. A malformed model answer is one invalid step and the
episode goes on; failures of ours leave the episode to a rerun, and the job exits non-zero so the
workflow retries it instead of recording the game as broken (a request the model server refused
and a sandbox that cannot start: tests/harness/test_play.py).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from playsuite.corpus import load_corpus
from playsuite.harness.node import ServerSettings, run_shard
from playsuite.records.manifest import read_manifest
from playsuite.runtimes.acquire import acquire
from playsuite.testing.standin import standin_argv
from tests.harness.shardjobs import play_shard_cmd
from tests.harness.test_play import REPO, check_episode, probe_row, shard_job

#: Answers of the stand-in's first four chat requests: the second holds a lone surrogate, which
#: a JSON answer can carry (``\ud800``) but no UTF-8 file or later prompt can.
ANSWERS = [
    "Observation: a square.\nReasoning: go right.\nAction: right",
    "Observation: \ud800 a square.\nReasoning: broken text.\nAction: right",
    "Observation: a square.\nReasoning: go left.\nAction: left",
    "Observation: a square.\nReasoning: rest.\nAction: wait",
]


def write_catalog(tmp_path: Path, *game_ids: str) -> Path:
    path = tmp_path / "games.yaml"
    path.write_text(yaml.safe_dump({"games": [probe_row(g) for g in game_ids]}))
    return path


def acquire_only(catalog: Path, games_dir: Path, *game_ids: str) -> None:
    for game in load_corpus(catalog):
        if game.id in game_ids:
            acquire(game, games_dir)


@pytest.mark.slow
def test_a_lone_surrogate_in_an_answer_is_one_invalid_step(tmp_path: Path) -> None:
    """k=3: the broken answer also goes back to the model in the next prompts' history."""
    catalog = write_catalog(tmp_path, "probe-a")
    games_dir = tmp_path / "games"
    acquire_only(catalog, games_dir, "probe-a")
    argv = standin_argv("{uds}", model="internvl3.5-8b", answers=ANSWERS)
    job = shard_job(
        tmp_path,
        catalog,
        games_dir,
        "internvl3.5-8b",
        server=ServerSettings.from_schema(argv=argv, ready_timeout_s=30),
    )
    manifest = tmp_path / "runs" / "shards" / "s0000.tsv"
    assert run_shard(job, manifest) == 0
    meta = check_episode(tmp_path / "runs" / "probe-a", 4)  # status ok, all four steps
    assert meta["invalid_steps"] == 1 and meta["invalid_rate"] == 0.25
    trace_text = (tmp_path / "runs" / "probe-a" / "trace.jsonl").read_text(encoding="utf-8")
    trace = [json.loads(line) for line in trace_text.splitlines()]
    assert [r["invalid"] for r in trace] == [False, True, False, False]
    assert trace[1]["response"] == ANSWERS[1].replace("\ud800", "\ufffd")
    assert [a["kind"] for a in trace[1]["actions"]] == ["invalid"]
    assert "lone surrogate" in trace[1]["actions"][0]["reason"]
    (row,) = read_manifest(manifest)
    assert row.status == "ok" and row.invalid_rate == 0.25


@pytest.mark.slow
def test_a_game_never_acquired_is_left_for_a_rerun(tmp_path: Path) -> None:
    catalog = write_catalog(tmp_path, "probe-a", "ghost")
    games_dir = tmp_path / "games"
    acquire_only(catalog, games_dir, "probe-a")
    runs = tmp_path / "runs"
    cmd = play_shard_cmd(tmp_path, catalog, games_dir, ["probe-a", "ghost"])
    first = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert first.returncode == 1, first.stderr  # the workflow retries the job
    assert "ghost" in first.stderr and "not acquired" in first.stderr, first.stderr
    assert not (runs / "shards" / "s0000.tsv").exists()
    assert not (runs / "ghost" / "meta.json").exists()  # no launch_failed blamed on the game
    played = (runs / "probe-a" / "meta.json").stat().st_mtime_ns
    check_episode(runs / "probe-a", 4)

    acquire_only(catalog, games_dir, "ghost")
    second = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    rows = {row.game: row.status for row in read_manifest(runs / "shards" / "s0000.tsv")}
    assert rows == {"probe-a": "ok", "ghost": "ok"}
    assert (runs / "probe-a" / "meta.json").stat().st_mtime_ns == played  # not played again
