"""A play job's log without a terminal tells which game each worker plays and how far it got:
the first step of each episode, then one step line per worker at most every ``step_log_s``."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
import yaml

from playsuite.config import Condition
from playsuite.corpus import load_corpus
from playsuite.harness.episode import EpisodeLimits
from playsuite.harness.job import ShardJob
from playsuite.harness.progress import Progress
from playsuite.registry import load_registry
from tests.harness.shardjobs import play_shard_cmd, probe_games
from tests.harness.test_play import REPO, probe_row


class Clock:
    """A hand-moved clock for the rate limit."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def job(tmp_path: Path, limits: dict[str, EpisodeLimits]) -> ShardJob:
    catalog = tmp_path / "games.yaml"
    catalog.write_text(yaml.safe_dump({"games": [probe_row("probe-a"), probe_row("probe-b")]}))
    return ShardJob(
        corpus="test",
        preset=load_registry().preset("random"),
        condition=Condition.parse("k0-hz0.33-base"),  # 3 s steps
        games=load_corpus(catalog),
        runs_dir=tmp_path / "runs",
        games_dir=tmp_path / "games",
        limits_by_runtime=limits,
        video_fps={"pygame": 30.0},
        live=True,  # asks for the live table: a stream that is no terminal gets lines instead
    )


def test_step_lines_are_rate_limited_per_worker(tmp_path: Path) -> None:
    out, clock = io.StringIO(), Clock()
    progress = Progress(
        job(tmp_path, {"pygame": EpisodeLimits(max_game_s=300.0)}),
        2,
        step_log_s=30.0,
        clock=clock,
        stream=out,
    )
    progress.update(0, "probe-a", "0", "launching", log=True)
    progress.step(0, "probe-a", 1, 3.0)  # an episode's first step is always logged
    clock.now += 10
    progress.step(0, "probe-a", 2, 6.0)  # 10 s later: quiet
    progress.step(1, "probe-b", 1, 3.0)  # another worker has its own limit
    clock.now += 25
    progress.step(0, "probe-a", 3, 9.0)  # 35 s after the last line of worker 0
    progress.step(1, "probe-b", 2, 6.0)  # 25 s after worker 1's: quiet
    progress.update(0, "probe-a", "3", "ok", log=True)
    progress.update(0, "probe-b", "0", "launching", log=True)
    progress.step(0, "probe-b", 1, 3.0)  # a new episode of worker 0 starts its lines afresh
    assert out.getvalue().splitlines() == [
        "[worker 0] probe-a: launching",
        "[worker 0] probe-a: step 1/100 (t=3s)",
        "[worker 1] probe-b: step 1/100 (t=3s)",
        "[worker 0] probe-a: step 3/100 (t=9s)",
        "[worker 0] probe-a: ok",
        "[worker 0] probe-b: launching",
        "[worker 0] probe-b: step 1/100 (t=3s)",
    ]
    assert progress.rows[1] == ("probe-b", "2/100", "t=6s")


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        (EpisodeLimits(max_steps=4, max_game_s=300.0), "4"),  # --steps is the tighter cap
        (EpisodeLimits(max_frames=10_000, max_game_s=None), "112"),  # 333.3 s of 30 fps video
        (EpisodeLimits(max_game_s=None), "?"),  # nothing bounds the steps
    ],
)
def test_the_step_count_is_the_tightest_cap(
    tmp_path: Path, limits: EpisodeLimits, expected: str
) -> None:
    out = io.StringIO()
    progress = Progress(job(tmp_path, {"pygame": limits}), 2, stream=out)
    progress.step(0, "probe-a", 1, 3.0)
    assert out.getvalue() == f"[worker 0] probe-a: step 1/{expected} (t=3s)\n"


@pytest.mark.slow
def test_a_play_shard_log_shows_each_game_and_step(tmp_path: Path) -> None:
    """A real job (the probe game, the random baseline) whose stderr is a file, as under
    Snakemake or Slurm: its log names the game and the step."""
    catalog, games_dir = probe_games(tmp_path, ["probe-a"])
    cmd = play_shard_cmd(tmp_path, catalog, games_dir, ["probe-a"], steps=2)
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "[worker 0] probe-a: launching" in proc.stderr
    assert "[worker 0] probe-a: step 1/2 (t=3s)" in proc.stderr
    assert "[worker 0] probe-a: ok" in proc.stderr
