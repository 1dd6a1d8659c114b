"""Scores table: Table 9 levels of judgements land in results/scores/{judge}.tsv rows."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from playsuite.analysis.scores import read_scores
from playsuite.files import write_json_atomic
from playsuite.judge.result import failed, judgement
from playsuite.judge.scores import collect_scores
from playsuite.records.scores import COLUMNS as SCORE_COLUMNS
from playsuite.records.scores import write_scores
from tests.judge.test_levels import milestones

CASES = {
    # game: (milestone overrides or None for a failed judgement, run status, expected level, status)
    "g-win": ({"win_or_completion_screen": True}, "ok", 4, "ok"),
    "g-sub": (
        {"new_area_or_level_reached": True, "score_or_resource_increased": True},
        "ok",
        3,
        "ok",
    ),
    "g-part": ({"score_or_resource_increased": True}, "ok", 2, "ok"),
    "g-int": ({"player_control_evident": True, "distinct_interactions": 2}, "ok", 1, "ok"),
    "g-none": ({}, "ok", 0, "ok"),
    "g-fail": (None, "ok", None, "judge_failed"),
    "g-crash": ({"score_or_resource_increased": True}, "crashed", 2, "crashed"),
}


def test_levels_land_in_scores_table(tmp_path) -> None:
    pairs = []
    for game, (fields, run_status, _, _) in CASES.items():
        ep = tmp_path / "runs/local/qwen3-vl-8b/k3-hz0.33-base" / game
        write_json_atomic(ep / "meta.json", {"status": run_status})
        out = tmp_path / "judgements/frame/local/qwen3-vl-8b/k3-hz0.33-base" / f"{game}.json"
        obj = (
            failed("frame", "failed", "bad")
            if fields is None
            else judgement(milestones(**fields), "frame")
        )
        write_json_atomic(out, obj)
        pairs.append((out, ep))
    df = collect_scores("frame", pairs, {"qwen3-vl-8b": "VLM"}, {("local", "g-win"): "Puzzle"})
    path = tmp_path / "scores/frame.tsv"
    write_scores(df, path)
    back = read_scores(path).set_index("game")
    assert list(read_scores(path).columns) == list(SCORE_COLUMNS)
    for game, (_, _, level, status) in CASES.items():
        assert back.at[game, "status"] == status
        if level is None:
            assert pd.isna(back.at[game, "level"])
        else:
            assert back.at[game, "level"] == level
    row = back.loc["g-win"]
    assert (row["history_k"], row["hz"], row["variant"]) == (3, 0.33, "base")
    assert row["family"] == "VLM" and row["genre"] == "Puzzle" and row["judge"] == "frame"


def test_tampered_level_is_refused(tmp_path) -> None:
    obj = judgement(milestones(), "frame")
    obj["level"] = 4
    path = tmp_path / "j.json"
    path.write_text(json.dumps(obj))
    ep = tmp_path / "runs/local/random/k0-hz0.33-base/g"
    write_json_atomic(ep / "meta.json", {"status": "ok"})
    with pytest.raises(ValueError, match="does not follow"):
        collect_scores("frame", [(path, ep)], {}, {})
