"""What a failure leaves behind (issue #13, item 6), on real games and real play-shard processes.

The frames of the step a game crashed or hung in are kept in its video; a damaged ``meta.json``
is named and its episode played again instead of aborting the shard; an episode played with
other settings than the job's (another ``--steps``) is played again instead of being mixed in.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from playsuite.agents.baselines import make_baseline
from playsuite.config import Condition
from playsuite.corpus import load_corpus
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, run_episode
from playsuite.judge.episode import load_episode
from playsuite.judge.frame_judge import judge_episode_frames
from playsuite.records.manifest import read_manifest
from playsuite.registry import load_registry
from playsuite.runtimes.acquire import acquire
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from tests.harness.shardjobs import play_shard_cmd
from tests.harness.test_play import REPO, check_episode, probe_row, video_seconds


def write_rows(tmp_path: Path, rows: list[dict]) -> Path:
    catalog = tmp_path / "games.yaml"
    catalog.write_text(yaml.safe_dump({"games": rows}))
    return catalog


def setup_games(tmp_path: Path, rows: list[dict]) -> tuple[Path, Path]:
    catalog = write_rows(tmp_path, rows)
    games_dir = tmp_path / "games"
    for game in load_corpus(catalog):
        acquire(game, games_dir)
    return catalog, games_dir


def play_shard(
    catalog: Path, games_dir: Path, runs: Path, games: str, steps: int
) -> subprocess.CompletedProcess[str]:
    """`playsuite play-shard` with the random baseline (no model server) into ``runs``."""
    cmd = play_shard_cmd(runs.parent, catalog, games_dir, games.split(","), steps)
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_game_that_dies_in_its_first_step_keeps_its_video_and_gets_a_level(
    tmp_path: Path,
) -> None:
    """The probe game raises after 30 frames: about a second into the first 3 s step."""
    catalog, games_dir = setup_games(tmp_path, [probe_row("early", "--crash-after", "30")])
    runs = tmp_path / "runs"
    result = play_shard(catalog, games_dir, runs, "early", steps=4)
    assert result.returncode == 0, result.stderr  # a crash is the game's own, final result
    (row,) = read_manifest(runs / "shards" / "s0000.tsv")
    assert row.status == "crashed" and row.steps == 1
    meta = json.loads((runs / "early" / "meta.json").read_text())
    assert 0 < meta["frames"] < 90, meta  # what the game showed before it died, not a full step
    assert video_seconds(runs / "early" / "episode.mp4") == pytest.approx(meta["t_game"], abs=1e-6)
    judged = judge_episode_frames(load_episode(runs / "early"))
    assert judged["status"] == "ok" and judged["level"] in range(5)


def hung_game_spec(tmp_path: Path, slice_timeout_s: float, wall_timeout_s: float) -> EpisodeSpec:
    """An episode of the probe game that spins forever after 30 frames (in its first step),
    played by the random baseline under the given slice and episode wall-clock limits."""
    (game,) = load_corpus(write_rows(tmp_path, [probe_row("stuck", "--hang-after", "30")]))
    acquired = acquire(game, tmp_path / "games")
    (tmp_path / "work").mkdir()
    return EpisodeSpec(
        corpus="test",
        game=game,
        preset=load_registry().preset("random"),
        condition=Condition.parse("k0-hz0.33-base"),
        out_dir=tmp_path / "episode",
        runtime_options=RuntimeOptions(
            workdir=tmp_path / "work", game_dir=acquired.files, slice_timeout_s=slice_timeout_s
        ),
        limits=EpisodeLimits(max_steps=4, wall_timeout_s=wall_timeout_s),
    )


@pytest.mark.slow
def test_a_game_that_hangs_in_its_first_step_keeps_its_video(tmp_path: Path) -> None:
    """The probe game spins forever after 30 frames; the slice limit is 8 s of wall time.

    The host reports a hung slice with its frames 2 s before that limit; with a shorter limit
    (3 s: 0.75 s of margin) a starved host missed it and the harness's own limit, which has no
    frames, ended the slice first."""
    spec = hung_game_spec(tmp_path, slice_timeout_s=8.0, wall_timeout_s=120)
    meta = run_episode(spec, make_baseline("random", seed=spec.seed), make_runtime)
    assert meta["status"] == "timeout" and meta["steps"] == 1, meta
    assert 0 < meta["frames"] < 90, meta
    video = tmp_path / "episode" / "episode.mp4"
    assert video_seconds(video) == pytest.approx(meta["t_game"], abs=1e-6)


@pytest.mark.slow
def test_a_corrupt_meta_json_is_named_and_its_episode_played_again(tmp_path: Path) -> None:
    catalog, games_dir = setup_games(tmp_path, [probe_row("probe-a"), probe_row("probe-b")])
    runs = tmp_path / "runs"
    first = play_shard(catalog, games_dir, runs, "probe-a,probe-b", steps=2)
    assert first.returncode == 0, first.stderr
    damaged = runs / "probe-a" / "meta.json"
    damaged.write_text('{"game": "probe-a", "status": "o')  # cut off, as by a full disk
    kept = (runs / "probe-b" / "meta.json").stat().st_mtime_ns

    rerun = play_shard(catalog, games_dir, runs, "probe-a,probe-b", steps=2)
    assert rerun.returncode == 0, rerun.stderr
    assert str(damaged) in rerun.stderr and "is played again" in rerun.stderr, rerun.stderr
    check_episode(runs / "probe-a", 2)
    aside = runs / ".replaced" / "probe-a" / "meta.json"
    assert aside.read_text() == '{"game": "probe-a", "status": "o'  # kept for inspection
    assert (runs / "probe-b" / "meta.json").stat().st_mtime_ns == kept  # not played again
    rows = {row.game: row.status for row in read_manifest(runs / "shards" / "s0000.tsv")}
    assert rows == {"probe-a": "ok", "probe-b": "ok"}


@pytest.mark.slow
def test_changing_the_number_of_steps_replays_instead_of_mixing_lengths(tmp_path: Path) -> None:
    catalog, games_dir = setup_games(tmp_path, [probe_row("probe-a")])
    runs = tmp_path / "runs"
    first = play_shard(catalog, games_dir, runs, "probe-a", steps=2)
    assert first.returncode == 0, first.stderr
    check_episode(runs / "probe-a", 2)

    rerun = play_shard(catalog, games_dir, runs, "probe-a", steps=3)
    assert rerun.returncode == 0, rerun.stderr
    assert "limits.max_steps: played with 2, asked 3" in rerun.stderr, rerun.stderr
    check_episode(runs / "probe-a", 3)
    (row,) = read_manifest(runs / "shards" / "s0000.tsv")
    assert row.steps == 3

    same = play_shard(catalog, games_dir, runs, "probe-a", steps=3)
    assert same.returncode == 0 and "played again" not in same.stderr, same.stderr
