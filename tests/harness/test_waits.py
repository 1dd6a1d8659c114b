"""Every wait of a play job is bounded by a setting (issue #13, item 4), on real processes.

The episode's wall-clock limit holds inside a hung step (the runtime's per-call limits are cut
to what the episode has left); a model server that never becomes ready fails the job after
``--ready-timeout``; once the server's restart budget is spent the job stops at once and leaves
its unplayed episodes for a rerun, instead of each remaining game waiting out its retries.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from playsuite.agents.baselines import make_baseline
from playsuite.harness.episode import run_episode
from playsuite.runtimes.factory import make_runtime
from playsuite.testing.standin import standin_argv
from tests.harness.shardjobs import SERVED, play_shard_cmd, probe_games
from tests.harness.test_evidence import hung_game_spec
from tests.harness.test_play import REPO


@pytest.mark.slow
def test_the_wall_limit_holds_inside_a_hung_step(tmp_path: Path) -> None:
    """The game hangs in its first step; the runtime's own slice limit is 120 s, the episode's
    wall limit 8 s: the episode ends near 8 s (it used to take the full 120 s)."""
    spec = hung_game_spec(tmp_path, slice_timeout_s=120.0, wall_timeout_s=8.0)
    started = time.monotonic()
    meta = run_episode(spec, make_baseline("random", seed=spec.seed), make_runtime)
    elapsed = time.monotonic() - started
    assert meta["status"] == "timeout" and meta["steps"] == 1, meta
    assert elapsed < 30, f"a hung step ran {elapsed:.0f} s past an 8 s episode limit"
    assert spec.runtime_options.slice_timeout_s == 120.0  # the caller's options are untouched


def _play_shard(tmp_path: Path, games: list[str], argv: list[str], *extra: str):
    catalog, games_dir = probe_games(tmp_path, games)
    cmd = play_shard_cmd(
        tmp_path, catalog, games_dir, games, 3, extra, preset=SERVED, server_argv=argv
    )
    started = time.monotonic()
    result = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    return result, time.monotonic() - started, tmp_path / "runs"


@pytest.mark.slow
def test_a_server_that_never_becomes_ready_fails_after_the_setting(tmp_path: Path) -> None:
    """Used to be a hard-coded 1800 s."""
    never_ready = ["sh", "-c", "echo loading weights...; exec sleep 600", "{uds}"]
    result, elapsed, runs = _play_shard(tmp_path, ["probe-a"], never_ready, "--ready-timeout", "4")
    assert result.returncode != 0 and elapsed < 60, (elapsed, result.stderr[-2000:])
    assert "not ready after 4 s" in result.stderr and "loading weights" in result.stderr
    assert not (runs / "shards" / "s0000.tsv").exists()


@pytest.mark.slow
def test_a_spent_restart_budget_ends_the_shard_at_once(tmp_path: Path) -> None:
    """The server dies on its second request and may not be restarted: the game under way and
    the three behind it are left for a rerun within seconds, not ~90 s of retries per game."""
    games = ["probe-a", "probe-b", "probe-c", "probe-d"]
    dying = standin_argv("{uds}", model=SERVED, latency_s=0.05, crash_after=1)
    result, elapsed, runs = _play_shard(tmp_path, games, dying, "--server-restarts", "0")
    assert result.returncode == 1 and elapsed < 90, (elapsed, result.stderr[-2000:])
    assert "restart budget (0) spent" in result.stderr
    left = [line for line in result.stderr.splitlines() if "left for a rerun" in line]
    assert len(left) == len(games) and all("model server gone" in line for line in left), left
    assert not (runs / "shards" / "s0000.tsv").exists()


@pytest.mark.slow
def test_the_wall_limit_holds_while_the_model_trickles_its_answer(tmp_path: Path) -> None:
    """The model server sends its answer a byte every 0.2 s (about a minute in all): each read
    returns at once, so only a deadline on the whole request ends it. The episode's wall limit is
    6 s: it ends as ``timeout`` near 6 s, not when the answer is done."""
    import dataclasses

    from playsuite.agents.served import ServedModelPolicy
    from playsuite.inference import InferenceClient, VLLMServer
    from playsuite.registry import load_registry

    preset = load_registry().preset(SERVED)
    sockets = Path(tempfile.mkdtemp(prefix="psw-", dir="/tmp"))  # short: a socket path
    uds = str(sockets / "m.sock")
    argv = standin_argv(uds, model=SERVED, trickle_s=0.2)
    spec = hung_game_spec(tmp_path, slice_timeout_s=30.0, wall_timeout_s=6.0)
    spec = dataclasses.replace(spec, preset=preset)
    with (
        VLLMServer(argv, uds, ready_timeout_s=30) as server,
        InferenceClient.for_preset(preset, server.uds) as client,
    ):
        started = time.monotonic()
        meta = run_episode(spec, ServedModelPolicy(preset, client), make_runtime)
        elapsed = time.monotonic() - started
    assert meta["status"] == "timeout" and meta["steps"] == 0, meta
    assert "waiting for the answer to step 0" in meta["error"], meta["error"]
    shutil.rmtree(sockets, ignore_errors=True)
    assert elapsed < 20, f"the episode ran {elapsed:.0f} s past its 6 s limit"
