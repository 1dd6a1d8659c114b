"""What a faulted play job leaves and what it costs (issue #13, item 8), with real processes and
real signals: SIGTERM, kill -9 of the job, a crashed worker, a full disk."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from playsuite.agents.baselines import make_baseline
from playsuite.analysis.cost import cost_table, read_cost_records
from playsuite.config import Condition
from playsuite.corpus import load_corpus
from playsuite.files import MB, InsufficientSpace, require_free_space
from playsuite.harness.costs import CostRecord
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, InfrastructureError, run_episode
from playsuite.harness.recorder import EpisodeRecorder, staging_leftovers
from playsuite.harness.scratch import owned_tempdir, stale_tempdirs, sweep_stale_tempdirs
from playsuite.registry import load_registry
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from tests.harness.shardjobs import (
    SERVED,
    cost_rows,
    manifest_of,
    play_shard_cmd,
    probe_games,
    start,
    wait_for,
)
from tests.harness.test_play import REPO, alive, descendants


@pytest.fixture
def tmpdir_env() -> Iterator[Path]:
    """A private $TMPDIR for the job (short: the model socket lives in it)."""
    folder = Path(tempfile.mkdtemp(prefix="pst-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def job_folders(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("playsuite-"))


def worker_of(job_pid: int) -> int | None:
    """The job's game worker (a multiprocessing child started with spawn), if it runs yet."""
    for pid in descendants(job_pid):
        with contextlib.suppress(OSError):
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
    return None


def wait_gone(pids: set[int], timeout_s: float = 15) -> None:
    deadline = time.monotonic() + timeout_s
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pids), "processes outlived the job"


def test_sweep_removes_folders_of_dead_owners_only(tmp_path: Path) -> None:
    sleeper = subprocess.Popen(["sleep", "60"])
    made: list[Path] = []
    try:
        dead = owned_tempdir("model", owner_pid=sleeper.pid)
        live = owned_tempdir("w0")  # this process: alive
        elsewhere = owned_tempdir("w1", owner_pid=sleeper.pid)  # same pid, another machine
        (elsewhere / ".owner").write_text(f"another-host pid:[1] {sleeper.pid}\n")
        container = owned_tempdir("w2", owner_pid=sleeper.pid)  # same pid, another namespace
        (container / ".owner").write_text(f"{socket.gethostname()} pid:[1] {sleeper.pid}\n")
        unrelated = Path(tempfile.mkdtemp(prefix="playsuite-bench-"))
        made = [dead, live, elsewhere, container, unrelated]
        assert dead.name.startswith(f"playsuite-model-pid{sleeper.pid}-")
        assert dead not in stale_tempdirs()  # its owner still runs
        sleeper.kill()
        sleeper.wait()
        removed = sweep_stale_tempdirs()  # (and whatever killed jobs left on this machine)
        assert dead in removed and not set(made[1:]) & set(removed)
        assert not dead.exists() and all(p.exists() for p in made[1:])
    finally:
        sleeper.kill()
        sleeper.wait()
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)


def test_cost_record_exists_from_the_start_and_keeps_its_wall_time(tmp_path: Path) -> None:
    fields = {"corpus": "c", "preset": "p", "condition": "k0-hz1-base", "shard": "s0000", "gpus": 1}
    record = CostRecord(tmp_path / "costs" / "s0000.tsv", fields, heartbeat_s=0.1).start()
    assert read_cost_records(tmp_path / "costs")["status"].tolist() == ["killed"]  # if it died now
    time.sleep(0.5)
    assert float(cost_rows(tmp_path)[0]["wall_s"]) >= 0.2  # heartbeats kept it current
    record.finish("ok")
    (row,) = cost_rows(tmp_path)
    assert row["status"] == "ok" and float(row["wall_s"]) >= 0.5


def test_disk_space_is_checked_before_recording_and_before_the_video(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    free = shutil.disk_usage(tmp_path).free
    with pytest.raises(InsufficientSpace, match=re.escape(f"in {tmp_path / 'ep'}:")):
        EpisodeRecorder(tmp_path / "ep", fps=10, min_free_bytes=free + 2**40)
    recorder = EpisodeRecorder(tmp_path / "ep", fps=10, min_free_bytes=1)
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=0))  # disk filled up
    with pytest.raises(InsufficientSpace, match=re.escape("play.min_free_mb")):
        recorder.add_frames([np.zeros((8, 8, 3), np.uint8)])
    assert not recorder.video.path.exists()  # the encoder never opened its file
    recorder.abort()
    require_free_space(tmp_path, 0, "unchecked")  # 0 disables the check


def test_a_disk_that_fills_during_a_shard_loses_the_episode_not_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real game; the disk is full by the time its first frames are to be encoded: the episode
    is an infrastructure failure (played again on rerun), not a final `crashed` one."""
    catalog, games_dir = probe_games(tmp_path, ["probe-a"])
    (game,) = load_corpus(catalog)
    (tmp_path / "work").mkdir()
    out = tmp_path / "runs" / "probe-a"
    spec = EpisodeSpec(
        corpus="test",
        game=game,
        preset=load_registry().preset("random"),
        condition=Condition.parse("k0-hz0.33-base"),
        out_dir=out,
        runtime_options=RuntimeOptions(
            workdir=tmp_path / "work", game_dir=games_dir / "probe-a" / "files"
        ),
        limits=EpisodeLimits(max_steps=2),
        min_free_bytes=MB,
    )
    real = shutil.disk_usage
    checks: list[str] = []

    def filling_up(path: str) -> Any:
        checks.append(str(path))
        return real(path) if len(checks) == 1 else real(path)._replace(free=0)

    monkeypatch.setattr(shutil, "disk_usage", filling_up)
    with pytest.raises(InfrastructureError, match=re.escape(f"not enough free space in {out}")):
        run_episode(spec, make_baseline("random", seed=spec.seed), make_runtime)
    assert len(checks) == 2  # when recording started, and before the video was opened
    assert not (out / "meta.json").exists() and staging_leftovers(out) == []


@pytest.mark.slow
def test_sigterm_cleans_up_and_records_a_terminated_attempt(
    tmp_path: Path, tmpdir_env: Path
) -> None:
    catalog, games_dir = probe_games(tmp_path, ["probe-a", "probe-b"])
    cmd = play_shard_cmd(tmp_path, catalog, games_dir, ["probe-a", "probe-b"], preset=SERVED)
    job = start(cmd, env={"TMPDIR": str(tmpdir_env)})
    try:
        first = tmp_path / "runs" / "probe-a" / "meta.json"
        wait_for("the first episode", first.exists, job)
        time.sleep(0.5)  # the second episode is under way
        assert {f.split("-pid")[0] for f in job_folders(tmpdir_env)} == {
            "playsuite-model",
            "playsuite-w0",
        }
        spawned = descendants(job.pid)
        job.send_signal(signal.SIGTERM)
        assert job.wait(timeout=60) == 128 + signal.SIGTERM
        err = job.stderr.read().decode()  # type: ignore[union-attr]
        assert "terminated (SIGTERM)" in err and "Traceback" not in err, err
    finally:
        job.kill()
        job.wait()
    wait_gone(spawned)
    assert job_folders(tmpdir_env) == [], "socket or scratch folder left in $TMPDIR"
    (row,) = cost_rows(tmp_path)
    assert row["status"] == "terminated" and float(row["wall_s"]) > 0
    assert not manifest_of(tmp_path).exists()
    assert not (tmp_path / "runs" / "probe-b" / "meta.json").exists()
    assert not [p for p in (tmp_path / "runs").iterdir() if p.name.startswith(".probe-b")]


@pytest.mark.slow
def test_kill_minus_nine_leftovers_are_swept_and_the_attempt_is_counted(
    tmp_path: Path, tmpdir_env: Path
) -> None:
    games = ["probe-a", "probe-b"]
    catalog, games_dir = probe_games(tmp_path, games)
    beat = ("--cost-heartbeat", "0.2")
    cmd = play_shard_cmd(tmp_path, catalog, games_dir, games, preset=SERVED, extra=beat)
    env = {"TMPDIR": str(tmpdir_env)}
    job = start(cmd, env=env)
    try:
        wait_for("the first episode", (tmp_path / "runs/probe-a/meta.json").exists, job)
        time.sleep(0.5)
        spawned = descendants(job.pid)
        job.kill()
        job.wait()
    finally:
        job.kill()
        job.wait()
    wait_gone(spawned)
    left = job_folders(tmpdir_env)
    assert len(left) == 2 and all(f"-pid{job.pid}-" in name for name in left), left
    (killed,) = cost_rows(tmp_path)
    assert killed["status"] == "running" and float(killed["wall_s"]) > 0

    env = {**os.environ, **env}
    rerun = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert rerun.returncode == 0, rerun.stderr
    assert job_folders(tmpdir_env) == [], "the next job did not sweep the killed one's folders"
    costs = read_cost_records(tmp_path / "costs")
    assert sorted(costs["status"]) == ["killed", "ok"]
    scores = pd.DataFrame(
        {"preset": SERVED, "family": "VLM", "condition": "k0-hz0.33-base", "status": "ok"},
        index=games,
    ).assign(level=[1.0, 2.0])
    (row,) = cost_table(scores, costs, "k0-hz0.33-base", None).to_dict("records")
    assert row["jobs"] == 2 and row["killed_jobs"] == 1 and row["failed_jobs"] == 1
    assert row["gpu_hours"] == pytest.approx(costs["wall_s"].sum() / 3600)  # 1 GPU each


@pytest.mark.slow
def test_a_crashed_worker_leaves_no_scratch_folder(tmp_path: Path, tmpdir_env: Path) -> None:
    catalog, games_dir = probe_games(tmp_path, ["probe-a", "probe-b"])
    cmd = play_shard_cmd(tmp_path, catalog, games_dir, ["probe-a", "probe-b"], steps=200)
    job = start(cmd, env={"TMPDIR": str(tmpdir_env)})
    try:
        wait_for("a game in the worker", lambda: bool(list(tmpdir_env.glob("*/probe-a"))), job)
        worker = worker_of(job.pid)
        assert worker is not None
        game_processes = descendants(worker)
        os.kill(worker, signal.SIGKILL)  # the worker dies at once, as in a segfault
        assert job.wait(timeout=120) == 1
        err = job.stderr.read().decode()  # type: ignore[union-attr]
        assert "worker died" in err, err
    finally:
        job.kill()
        job.wait()
    wait_gone(game_processes)
    assert job_folders(tmpdir_env) == [], "the crashed worker's scratch folder was left"
    (row,) = cost_rows(tmp_path)
    assert row["status"] == "failed"


@pytest.mark.slow
def test_too_little_free_space_fails_the_job_clearly(tmp_path: Path) -> None:
    """A threshold above the free space stands in for a full disk: the job stops before any
    worker or encoder starts, naming the folder and the space needed."""
    catalog, games_dir = probe_games(tmp_path, ["probe-a"])
    huge = str(10 * (shutil.disk_usage(tmp_path).free // 2**20 + 1))
    cmd = play_shard_cmd(tmp_path, catalog, games_dir, ["probe-a"], extra=("--min-free-mb", huge))
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert f"not enough free space in {tmp_path / 'runs'}" in done.stderr
    assert f"{huge} MB needed" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "runs" / "probe-a").exists()


@pytest.mark.slow
def test_a_really_full_disk_fails_the_job_clearly(tmp_path: Path) -> None:
    """A full 8 MB tmpfs under the results (root only): the same clear error, no crash."""
    full = tmp_path / "full"
    full.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(full)], capture_output=True
        ).returncode
    ):
        pytest.skip("needs root and mount to make a small file system")
    try:
        with contextlib.suppress(OSError), open(full / "filler", "wb") as fh:
            while True:
                fh.write(b"\0" * 2**20)
        catalog, games_dir = probe_games(tmp_path, ["probe-a"])
        cmd = play_shard_cmd(tmp_path, catalog, games_dir, ["probe-a"])
        runs = full / "runs"
        cmd[cmd.index("--runs-dir") + 1] = str(runs)
        cmd[cmd.index("--manifest") + 1] = str(runs / "shards" / "s0000.tsv")
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
        assert done.returncode == 1, done.stderr
        assert f"not enough free space in {runs}: 0 MB free" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and not runs.exists()
    finally:
        subprocess.run(["umount", "-l", str(full)], check=False)
