"""Two jobs on one shard (issue #13, item 3): after kill -9 of snakemake its play job lives on as
an orphan, and after `snakemake --unlock` a second job is started for the same shard. The second
must wait or fail naming the first, and no episode folder may ever mix two recordings."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from playsuite.files import DirectoryTaken
from playsuite.harness.recorder import EpisodeRecorder, staging_leftovers
from playsuite.locks import ShardBusy, exclusive_lock, is_locked, lock_path_for, read_owner
from playsuite.records.manifest import read_manifest
from tests.harness.shardjobs import (
    check_consistent,
    manifest_of,
    play_shard_cmd,
    probe_games,
    start,
    video_frames,
    wait_for,
)
from tests.harness.test_play import REPO, alive, descendants

HOLD = """
import sys, time
from pathlib import Path
from playsuite.locks import exclusive_lock
with exclusive_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def frames(n: int, shade: int) -> list[np.ndarray]:
    return [np.full((48, 64, 3), shade, np.uint8) for _ in range(n)]


def test_two_recorders_of_one_episode_never_mix_their_files(tmp_path: Path) -> None:
    """Each recording grows in its own staging folder (pid + random name); the first to finish
    publishes the whole folder, the second is refused and its files dropped."""
    out = tmp_path / "runs" / "probe-a"
    first = EpisodeRecorder(out, fps=10)
    first.add_frames(frames(5, 40))
    first.add_step({"step": 0, "run": "first"})
    second = EpisodeRecorder(out, fps=10)  # the orphan's rerun starts the same episode
    second.add_frames(frames(9, 200))
    second.add_step({"step": 0, "run": "second"})
    second.add_step({"step": 1, "run": "second"})
    assert first.staging != second.staging
    assert f".pid{os.getpid()}-" in first.staging.name
    first.finish({"status": "ok", "run": "first", "frames": 5, "steps": 1})
    second.add_frames(frames(3, 200))  # the second still writes into its own files only
    with pytest.raises(DirectoryTaken, match="another process"):
        second.finish({"status": "ok", "run": "second", "frames": 12, "steps": 2})
    assert sorted(p.name for p in out.iterdir()) == ["episode.mp4", "meta.json", "trace.jsonl"]
    assert json.loads((out / "meta.json").read_text())["run"] == "first"
    trace = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert [r["run"] for r in trace] == ["first"]
    assert video_frames(out / "episode.mp4") == 5
    assert staging_leftovers(out) == []


def test_a_held_lock_names_its_owner_and_frees_when_the_owner_dies(tmp_path: Path) -> None:
    lock = lock_path_for(tmp_path / "shards" / "s0000.tsv")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock), "60"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        owner = read_owner(lock)
        assert owner is not None and owner.pid == holder.pid
        assert owner.host == socket.gethostname()
        started = time.monotonic()
        with pytest.raises(ShardBusy) as busy, exclusive_lock(lock, wait_s=0.5, poll_s=0.1):
            pass
        assert time.monotonic() - started >= 0.5  # it waited as long as asked, no longer
        assert f"pid {holder.pid} on host {socket.gethostname()}" in str(busy.value)
        assert "play.lock_wait_s" in str(busy.value)
        holder.kill()  # kill -9: nobody cleans up, the kernel frees the lock
        holder.wait()
        assert not is_locked(lock)
        with exclusive_lock(lock) as me:
            assert me.pid == os.getpid() and read_owner(lock) == me
        assert read_owner(lock) is None  # released: no stale owner left to mislead anyone
    finally:
        holder.kill()
        holder.wait()


def test_a_waiting_job_gets_the_lock_when_the_holder_ends(tmp_path: Path) -> None:
    lock = tmp_path / "s0000.tsv.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock), "1.0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with exclusive_lock(lock, wait_s=60, poll_s=0.1) as me:
            assert me.pid == os.getpid() and read_owner(lock) == me
        assert time.monotonic() - started >= 0.5  # it had to wait for the holder's second
        assert holder.wait(timeout=30) == 0
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.slow
def test_a_second_job_on_a_live_shard_fails_naming_the_first(tmp_path: Path) -> None:
    """Real play-shard processes: the second job is refused with the first's pid and host; the
    first's episodes stay whole; kill -9 of the first frees the shard; a rerun completes it."""
    games = ["probe-a", "probe-b", "probe-c"]
    catalog, games_dir = probe_games(tmp_path, games)
    lock = lock_path_for(manifest_of(tmp_path))
    first = start(play_shard_cmd(tmp_path, catalog, games_dir, games, steps=30))
    try:
        wait_for("the first job's lock", lambda: read_owner(lock) is not None, first)
        assert read_owner(lock).pid == first.pid  # type: ignore[union-attr]
        # The orphan is still busy (stopped here, so that it cannot finish before the second
        # job starts; its worker keeps playing meanwhile).
        os.kill(first.pid, signal.SIGSTOP)
        second = subprocess.run(
            play_shard_cmd(tmp_path, catalog, games_dir, games, steps=3),
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        os.kill(first.pid, signal.SIGCONT)
        assert second.returncode == 1, second.stderr
        assert f"held by pid {first.pid} on host {socket.gethostname()}" in second.stderr
        assert "Traceback" not in second.stderr
        assert len(list((tmp_path / "costs").glob("s0000.*.tsv"))) == 2  # both attempts count

        wait_for("a first episode", lambda: (tmp_path / "runs/probe-a/meta.json").exists(), first)
        spawned = descendants(first.pid)
        first.kill()
        first.wait()
        deadline = time.monotonic() + 15
        while (is_locked(lock) or alive(spawned)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not is_locked(lock), "the lock outlived its killed owner"
        for game in games:  # every finished folder is one recording (the first's 30 steps)
            if (tmp_path / "runs" / game / "meta.json").exists():
                assert check_consistent(tmp_path / "runs" / game)["steps"] == 30
    finally:
        first.kill()
        first.wait()

    rerun = subprocess.run(
        play_shard_cmd(tmp_path, catalog, games_dir, games, steps=30),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert rerun.returncode == 0, rerun.stderr
    assert {row.game for row in read_manifest(manifest_of(tmp_path))} == set(games)
    for game in games:
        assert check_consistent(tmp_path / "runs" / game)["steps"] == 30
        assert staging_leftovers(tmp_path / "runs" / game) == []  # the killed run's are gone


@pytest.mark.slow
def test_a_second_job_may_wait_for_the_first_and_replays_nothing(tmp_path: Path) -> None:
    games = ["probe-a", "probe-b"]
    catalog, games_dir = probe_games(tmp_path, games)
    lock = lock_path_for(manifest_of(tmp_path))
    jobs = [start(play_shard_cmd(tmp_path, catalog, games_dir, games, steps=12))]
    first = jobs[0]
    try:
        wait_for("the first job's lock", lambda: read_owner(lock) is not None, first)
        waiting = ("--lock-wait", "240")
        jobs.append(start(play_shard_cmd(tmp_path, catalog, games_dir, games, 12, waiting)))
        assert first.wait(timeout=240) == 0, first.stderr.read().decode()  # type: ignore[union-attr]
        finished = {g: (tmp_path / "runs" / g / "meta.json").stat().st_mtime_ns for g in games}
        assert jobs[1].wait(timeout=240) == 0
        err = jobs[1].stderr.read().decode()  # type: ignore[union-attr]
        assert f"held by pid {first.pid}" in err and "waiting up to 240 s" in err, err
    finally:
        for job in jobs:
            job.kill()
            job.wait()
    for game in games:  # the second job found every episode finished: nothing played twice
        assert (tmp_path / "runs" / game / "meta.json").stat().st_mtime_ns == finished[game]
        check_consistent(tmp_path / "runs" / game)
    assert len(read_manifest(manifest_of(tmp_path))) == 2
