"""Games on the triage policy ``monitor`` play with extra logging: the sandbox's process list and
the game's own log are kept next to the episode, and meta.json says the episode was monitored."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from playsuite.config import Condition
from playsuite.corpus import load_corpus
from playsuite.harness.cli import limits_for
from playsuite.harness.monitor import ProcessMonitor, needs_monitoring
from playsuite.harness.node import ShardJob, run_shard
from playsuite.registry import load_registry
from playsuite.runtimes.acquire import acquire

REPO = Path(__file__).resolve().parents[2]


def rows(path: Path) -> list[dict[str, str]]:
    header, *lines = path.read_text().splitlines()
    keys = header.split("\t")
    return [dict(zip(keys, line.split("\t"), strict=True)) for line in lines]


def test_policy_from_the_row() -> None:
    assert needs_monitoring({"triage": {"risk": 3, "policy": "monitor"}})
    assert not needs_monitoring({"triage": {"risk": 1, "policy": "run"}})
    assert not needs_monitoring({})


def test_process_monitor_logs_starts_and_exits(tmp_path: Path) -> None:
    import os

    monitor = ProcessMonitor(os.getpid(), tmp_path / "processes.tsv", interval_s=0.05)
    with monitor:
        child = subprocess.Popen(["sleep", "0.4"])
        child.wait()
        monitor.sample()
    events = [(r["event"], r["cmdline"]) for r in rows(tmp_path / "processes.tsv")]
    assert ("start", "sleep 0.4") in events and ("exit", "sleep 0.4") in events
    started = next(r for r in rows(tmp_path / "processes.tsv") if r["event"] == "start")
    assert int(started["ppid"]) == os.getpid() and int(started["rss_kb"]) >= 0


def probe(game_id: str, policy: str) -> dict:
    return {
        "id": game_id,
        "title": "Probe game",
        "source": "local",
        "package": str(REPO / "tests/fixtures/probe_game"),
        "runtime": "pygame",
        "entry": "main.py",
        "options": {"triage": {"risk": 3 if policy == "monitor" else 0, "policy": policy}},
    }


@pytest.mark.slow
def test_node_runner_monitors_a_risky_game(tmp_path: Path) -> None:
    catalog = tmp_path / "games.yaml"
    catalog.write_text(
        yaml.safe_dump({"games": [probe("watched", "monitor"), probe("plain", "clean")]})
    )
    games = load_corpus(catalog)
    for game in games:
        acquire(game, tmp_path / "games")
    job = ShardJob(
        corpus="test",
        preset=load_registry().preset("random"),
        condition=Condition.parse("k0-hz0.33-base"),
        games=games,
        runs_dir=tmp_path / "runs",
        games_dir=tmp_path / "games",
        workers=1,
        limits_by_runtime=limits_for(8, 300),  # long enough for several process samples
        live=False,
        log_dir=tmp_path / "logs",
    )
    assert run_shard(job, tmp_path / "manifest.tsv") == 0
    watched = json.loads((tmp_path / "runs/watched/meta.json").read_text())
    plain = json.loads((tmp_path / "runs/plain/meta.json").read_text())
    assert watched["status"] == plain["status"] == "ok"
    assert watched["monitored"] is True and plain["monitored"] is False
    folder = Path(watched["monitor_dir"])
    assert folder == tmp_path / "logs/monitor/watched"
    assert not (tmp_path / "logs/monitor/plain").exists()
    processes = rows(folder / "processes.tsv")
    started = [r["cmdline"] for r in processes if r["event"] == "start"]
    assert any(Path(c.split()[0]).name == "bwrap" for c in started), started  # the sandbox
    assert any("pygame_host.py" in c for c in started), started  # the game inside it
    exited = {r["pid"] for r in processes if r["event"] == "exit"}
    assert {r["pid"] for r in processes if r["event"] == "start"} <= exited  # all reaped
    assert (folder / "game.log").is_file()
