"""``playsuite human play`` as a person runs it: it prints the page's address, plays the episode
the page answers, records it under the player's pseudonym, and refuses to overwrite it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from playsuite.human.identity import pseudonym, study_secret
from playsuite.records.episode import read_meta, read_trace

pytestmark = [pytest.mark.slow, pytest.mark.games]
PLAYSUITE = str(Path(sys.executable).with_name("playsuite"))


def test_play_command_records_the_episode_under_a_pseudonym(
    tmp_path: Path, probe_row: dict
) -> None:
    catalog = tmp_path / "games.yaml"
    catalog.write_text(yaml.safe_dump({"games": [probe_row]}))
    secret = tmp_path / "study.secret"
    cmd = [PLAYSUITE, "human", "play", "probe-game", "--player", "Ann Example"]
    cmd += ["--catalog", str(catalog), "--games-dir", str(tmp_path / "games")]
    cmd += ["--runs-dir", str(tmp_path / "runs"), "--secret", str(secret)]
    cmd += ["--condition", "k0-hz1-base", "--steps", "1"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url, head = "", ""
        while not url:
            line = proc.stdout.readline()
            head += line
            assert line, proc.stderr.read()
            if match := re.search(r"open (http://127\.0\.0\.1:\d+/\?token=\S+)", line):
                url = match[1]
        base, token = url.split("/?token=")
        api = lambda path: f"{base}{path}?token={token}"  # noqa: E731
        deadline = time.monotonic() + 60
        while not httpx.get(api("/api/state")).json()["waiting"]:
            assert time.monotonic() < deadline, "the game never showed its first frame"
            time.sleep(0.1)
        reply = httpx.post(
            api("/api/act"), json={"step": 0, "actions": [{"kind": "key", "keys": ["space"]}]}
        )
        assert reply.status_code == 200, reply.text
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    player = pseudonym("ann example", study_secret(secret), "p")
    assert f"player {player}" in head + out
    episode = tmp_path / "runs" / "local" / "human" / "k0-hz1-base" / "probe-game"
    meta = read_meta(episode)
    assert (meta["player"], meta["agent"], meta["steps"]) == (player, "human", 1)
    assert meta["final_probes"]["score"] == 1
    assert read_trace(episode)[0]["actions"] == [{"kind": "key", "keys": ["space"]}]
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "already holds an episode" in again.stderr
