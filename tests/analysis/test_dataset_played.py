"""The dataset export of a really played and judged episode, read back by `datasets`.

A real play-shard job plays the probe game (pygame, in the sandbox) with a served preset whose
model is the stand-in server, so every step has a raw response; the frame judge (local) judges
it; `playsuite export-dataset` exports it; `datasets.load_dataset("parquet", ...)` reads it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from playsuite.judge.video import fit_size, sample_video
from playsuite.records.episode import read_meta, read_trace
from tests.harness.shardjobs import SERVED, play_shard_cmd, probe_games
from tests.harness.test_play import PLAYSUITE, REPO


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc


@pytest.mark.slow
def test_a_played_episode_loads_back(tmp_path: Path) -> None:
    import datasets

    catalog, games_dir = probe_games(tmp_path, ["probe-a"])
    run(play_shard_cmd(tmp_path, catalog, games_dir, ["probe-a"], steps=4, preset=SERVED))
    episode = tmp_path / "runs" / "probe-a"
    meta, trace = read_meta(episode), read_trace(episode)
    assert meta["status"] == "ok" and len(trace) == 4
    condition = meta["condition"]
    judgement = tmp_path / "judgements/frame/test" / SERVED / condition / "probe-a.json"
    run([PLAYSUITE, "judge", str(episode), "--judge", "frame", "--out", str(judgement)])
    level = json.loads(judgement.read_text())["level"]

    out = tmp_path / "dataset"
    export = run(
        [PLAYSUITE, "export-dataset", str(out), str(tmp_path / "runs"),
         "--judgements", str(tmp_path / "judgements" / "frame")]
    )  # fmt: skip
    assert "1 episodes ->" in export.stdout

    def load(table: str) -> datasets.Dataset:
        files = {"train": str(out / table / "*.parquet")}
        return datasets.load_dataset(
            "parquet", data_files=files, split="train", cache_dir=str(tmp_path / "cache")
        )

    frames, steps, episodes = load("frames"), load("steps"), load("episodes")
    # one frame per second of game time, the size the judge sees
    sampled = sample_video(episode / "episode.mp4")
    assert len(frames) == len(sampled) == round(meta["t_game"])
    for row in frames:
        assert row["image"].size == fit_size(*meta["screen"])
        assert row["episode_id"] == f"test/{SERVED}/{condition}/probe-a"
        assert row["level"] == level
    assert frames["step"] == [int(t // 3) for t in frames["t"]]  # one step per 3 s
    # every step: the model's raw answer and the actions parsed from it
    assert len(steps) == 4
    assert steps["response"] == [s["response"] for s in trace]
    assert all(steps["response"])
    assert [json.loads(a) for a in steps["actions"]] == [s["actions"] for s in trace]
    assert steps["image_width"] == [s["image_size"][0] for s in trace]
    # the episode: what was played, by which model, and the judge's verdict
    (row,) = episodes
    assert (row["game"], row["preset"], row["corpus"], row["runtime"]) == (
        "probe-a",
        SERVED,
        "test",
        "pygame",
    )
    assert row["model"] == meta["model"]["hf_id"] and row["seed"] == meta["seed"]
    assert (row["status"], row["judge"], row["judge_status"], row["level"]) == (
        "ok",
        "frame",
        "ok",
        level,
    )
    assert row["samples"] == len(frames) and row["steps"] == 4
