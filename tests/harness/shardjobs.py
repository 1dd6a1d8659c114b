"""Helpers for tests that run real `playsuite play-shard` processes and fault them."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import av
import yaml

from playsuite.corpus import load_corpus
from playsuite.runtimes.acquire import acquire
from playsuite.testing.standin import standin_argv
from tests.harness.test_play import PLAYSUITE, REPO, probe_row

SERVED = "internvl3.5-8b"  # played through the stand-in server in these tests


def probe_games(folder: Path, ids: list[str]) -> tuple[Path, Path]:
    """A catalog of probe games and the folder they are acquired into."""
    catalog = folder / "games.yaml"
    catalog.write_text(yaml.safe_dump({"games": [probe_row(i) for i in ids]}))
    games_dir = folder / "games"
    for game in load_corpus(catalog):
        acquire(game, games_dir)
    return catalog, games_dir


def play_shard_cmd(
    folder: Path,
    catalog: Path,
    games_dir: Path,
    games: list[str],
    steps: int = 4,
    extra: tuple[str, ...] = (),
    *,
    preset: str = "random",
    server_argv: list[str] | None = None,
) -> list[str]:
    """`playsuite play-shard` for shard s0000 of a run under ``folder/runs`` (one worker); the
    served preset gets ``server_argv`` or else a stand-in server answering in 0.4 s."""
    cmd = [
        PLAYSUITE, "play-shard", "--corpus", "test", "--catalog", str(catalog),
        "--preset", preset, "--condition", "k0-hz0.33-base", "--shard", "s0000",
        "--games", ",".join(games), "--workers", "1", "--steps", str(steps),
        "--runs-dir", str(folder / "runs"), "--games-dir", str(games_dir),
        "--manifest", str(manifest_of(folder)), "--costs", str(folder / "costs" / "s0000.tsv"),
    ]  # fmt: skip
    if preset == SERVED:
        argv = server_argv or standin_argv("{uds}", model=SERVED, latency_s=0.4)
        cmd += ["--server-argv", json.dumps(argv)]
    return cmd + list(extra)


def manifest_of(folder: Path) -> Path:
    return folder / "runs" / "shards" / "s0000.tsv"


def start(cmd: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cmd,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )


def wait_for(
    what: str, check: Callable[[], bool], proc: subprocess.Popen[bytes], timeout_s: float = 120
) -> None:
    """Poll ``check`` until true; fail with the job's stderr if the job ends first."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if proc.poll() is not None:
            raise AssertionError(f"job ended before {what}: {proc.stderr.read().decode()}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def cost_rows(folder: Path) -> list[dict[str, str]]:
    """Every cost record row the job attempts wrote (one file per attempt)."""
    rows = []
    for path in sorted((folder / "costs").glob("s0000.*.tsv")):
        header, line = path.read_text().splitlines()
        rows.append(dict(zip(header.split("\t"), line.split("\t"), strict=True)))
    return rows


def video_frames(path: Path) -> int:
    with av.open(str(path)) as container:
        return sum(1 for _ in container.decode(container.streams.video[0]))


def check_consistent(episode: Path) -> dict:
    """The folder's files are one recording's: trace and video match its meta.json."""
    meta = json.loads((episode / "meta.json").read_text())
    steps = len((episode / "trace.jsonl").read_text().splitlines())
    assert steps == meta["steps"], (episode, steps, meta["steps"])
    assert video_frames(episode / "episode.mp4") == meta["frames"], episode
    return meta
