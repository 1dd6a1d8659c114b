"""Damaged episodes are judged as damaged (issue #13, item 6), never as absent.

A truncated video of an ``ok`` episode, a cut-off ``meta.json`` or a malformed trace line each get
their own judgement status, and the scores table keeps those rows with a status that says so,
apart from the ``no_video`` of a game that never launched and the ``missing_episode`` of a game
never played.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from playsuite.analysis.scores import read_scores, valid
from playsuite.judge.result import read_judgement
from playsuite.judge.run import run_shard_manifest
from playsuite.judge.scores import collect_scores
from playsuite.records.scores import write_scores

RUN = "runs/local/random/k0-hz0.33-base"


def damaged_run(playing_episode: Path, tmp_path: Path) -> Path:
    """Five copies of a real episode: intact, video cut in half, meta.json cut off, a bad trace
    line, and one whose directory is gone."""
    runs = tmp_path / RUN
    for game in ("intact", "cut-video", "cut-meta", "bad-trace"):
        shutil.copytree(playing_episode, runs / game)
    video = runs / "cut-video" / "episode.mp4"
    video.write_bytes(video.read_bytes()[: video.stat().st_size // 2])
    meta = runs / "cut-meta" / "meta.json"
    meta.write_bytes(meta.read_bytes()[:40])
    with open(runs / "bad-trace" / "trace.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"step": 99, "t_game": \n')
    return runs


def test_damaged_episodes_get_their_own_judge_statuses(playing_episode, tmp_path) -> None:
    runs = damaged_run(playing_episode, tmp_path)
    games = ("intact", "cut-video", "cut-meta", "bad-trace", "gone")
    judgements = tmp_path / "judgements"
    counts = run_shard_manifest(
        "frame", [runs / g for g in games], judgements, tmp_path / "judge.tsv"
    )
    assert counts == {
        "ok": 1,
        "corrupt_video": 1,
        "corrupt_meta": 1,
        "corrupt_trace": 1,
        "no_episode": 1,
    }
    cut_meta = read_judgement(judgements / "cut-meta.json")
    assert str(runs / "cut-meta" / "meta.json") in cut_meta["error"]
    bad_trace = read_judgement(judgements / "bad-trace.json")
    assert "trace.jsonl" in bad_trace["error"] and "line" in bad_trace["error"]
    assert "level" not in read_judgement(judgements / "cut-video.json")


def test_scores_keep_damaged_episodes_visible(playing_episode, tmp_path) -> None:
    runs = damaged_run(playing_episode, tmp_path)
    games = ("intact", "cut-video", "cut-meta", "gone")
    judgements = tmp_path / "judgements"
    run_shard_manifest("frame", [runs / g for g in games], judgements, tmp_path / "judge.tsv")
    pairs = [(judgements / f"{g}.json", runs / g) for g in games]
    path = tmp_path / "scores" / "frame.tsv"
    write_scores(collect_scores("frame", pairs, {"random": "baseline"}, {}), path)
    table = read_scores(path).set_index("game")
    assert table["status"].to_dict() == {
        "cut-meta": "corrupt_meta",
        "cut-video": "judge_corrupt_video",
        "gone": "missing_episode",
        "intact": "ok",
    }
    assert list(valid(table.reset_index())["game"]) == ["intact"]
