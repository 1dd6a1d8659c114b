"""The frame and state judges on real recordings of the scripted game."""

from __future__ import annotations

import json
import shutil

import pytest

from playsuite.judge.episode import EpisodeError, Step, load_episode
from playsuite.judge.frame_judge import judge_episode_frames
from playsuite.judge.result import CORRUPT_VIDEO, NO_PROBES, NO_VIDEO
from playsuite.judge.state_judge import judge_state, probe_findings, probe_role


def test_frame_judge_sees_title_control_and_new_area(playing_episode) -> None:
    out = judge_episode_frames(load_episode(playing_episode))
    assert out["status"] == "ok" and out["judge"] == "frame"
    assert out["menu_or_title_seen"] and out["left_menu_into_gameplay"]
    assert out["player_control_evident"] and out["gameplay_happened"]
    # enter, right, left and space each moved something on screen; "z" did nothing.
    assert out["distinct_interactions"] == 4
    assert out["new_area_or_level_reached"]
    assert not out["stuck_or_looping"]
    when = {m["field"]: m["t_sec"] for m in out["milestones"]}
    assert when["left_menu_into_gameplay"] == 4.0  # first sample after Enter at 3 s
    assert when["new_area_or_level_reached"] == 11.0  # the purple area appears at ~10.4 s
    # Score and stage come from the probes the trace carries.
    assert out["score_or_resource_increased"] and when["score_or_resource_increased"] == 15.0
    assert out["level"] == 3
    assert out["unobserved"] == ["win_or_completion_screen"]


def test_frame_judge_without_probes_says_what_it_cannot_see(playing_episode, tmp_path) -> None:
    ep = tmp_path / "ep"
    shutil.copytree(playing_episode, ep)
    lines = [json.loads(x) for x in (ep / "trace.jsonl").read_text().splitlines()]
    for line in lines:
        line.pop("probes")
    (ep / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = judge_episode_frames(load_episode(ep))
    assert not out["score_or_resource_increased"]
    assert set(out["unobserved"]) == {
        "score_or_resource_increased",
        "checkpoint_or_objective_completed",
        "win_or_completion_screen",
        "death_or_game_over_count",
    }
    assert out["level"] == 2  # new area seen in the pixels, nothing else claimed


def test_idle_agent_is_stuck_with_no_progress(idle_episode) -> None:
    out = judge_episode_frames(load_episode(idle_episode))
    assert out["stuck_or_looping"]
    assert not out["player_control_evident"] and not out["menu_or_title_seen"]
    assert out["distinct_interactions"] == 0 and out["level"] == 0


def test_frame_judge_is_deterministic(playing_episode) -> None:
    ep = load_episode(playing_episode)
    assert judge_episode_frames(ep) == judge_episode_frames(ep)


def test_missing_video_is_recorded_not_scored(playing_episode, tmp_path) -> None:
    """``no_video`` is for an episode that recorded no frames; the video of one that did is
    damaged evidence, ``corrupt_video``. Neither is ever a level."""
    ep = tmp_path / "ep"
    shutil.copytree(playing_episode, ep)
    (ep / "episode.mp4").unlink()
    out = judge_episode_frames(load_episode(ep))
    assert out["status"] == CORRUPT_VIDEO and "level" not in out
    assert "records" in out["error"] and "frames" in out["error"]
    meta = json.loads((ep / "meta.json").read_text())
    (ep / "meta.json").write_text(json.dumps({**meta, "status": "launch_failed", "frames": 0}))
    out = judge_episode_frames(load_episode(ep))
    assert out["status"] == NO_VIDEO and "level" not in out


def test_state_judge_reads_probes(playing_episode) -> None:
    out = judge_state(load_episode(playing_episode))
    assert out["status"] == "ok"
    assert out["score_or_resource_increased"] and out["new_area_or_level_reached"]
    assert out["checkpoint_or_objective_completed"]  # level 1 -> 2 completes stage 1
    assert out["death_or_game_over_count"] == 0
    assert out["level"] == 3
    assert "player_control_evident" in out["unobserved"]
    assert "death_or_game_over_count" not in out["unobserved"]  # game_over probe covers it


def test_state_judge_without_probes_has_no_level(idle_episode, tmp_path) -> None:
    ep = tmp_path / "ep"
    shutil.copytree(idle_episode, ep)
    lines = [json.loads(x) for x in (ep / "trace.jsonl").read_text().splitlines()]
    (ep / "trace.jsonl").write_text("".join(json.dumps({**x, "probes": {}}) + "\n" for x in lines))
    out = judge_state(load_episode(ep))
    assert out["status"] == NO_PROBES and "level" not in out


def _steps(*values: dict) -> list[Step]:
    return [Step(step=i, t_game=3.0 * i, actions=(), probes=v) for i, v in enumerate(values)]


def test_probe_rules() -> None:
    f = probe_findings(
        _steps(
            {"coins": 0, "lives": 3, "room": "hall", "won": False, "mystery": 1},
            {"coins": 0, "lives": 2, "room": "hall", "won": False, "mystery": 2},
            {"coins": None, "lives": 2, "room": "cellar", "won": False},
            {"coins": 5, "lives": 1, "room": "cellar", "won": True},
        )
    )
    assert f.fields["score_or_resource_increased"]  # 0 -> (failed read) -> 5
    assert f.fields["new_area_or_level_reached"]
    assert "checkpoint_or_objective_completed" not in f.fields  # a room is not a stage
    assert f.fields["death_or_game_over_count"] == 2
    assert f.fields["win_or_completion_screen"]
    when = {e["field"]: e["t_sec"] for e in f.evidence}
    assert when == {
        "score_or_resource_increased": 9.0,
        "new_area_or_level_reached": 6.0,
        "death_or_game_over_count": 3.0,
        "win_or_completion_screen": 9.0,
    }
    assert probe_role("score_p1") == "score" and probe_role("mystery") is None
    assert probe_role("Level") == "area" and probe_role("levelling") is None


def test_decreasing_score_and_bools_are_not_increases() -> None:
    f = probe_findings(_steps({"score": 10}, {"score": 5}, {"score": True}))
    assert not f.fields.get("score_or_resource_increased")
    assert "score_or_resource_increased" in f.observed


def test_malformed_trace_is_a_clear_error(playing_episode, tmp_path) -> None:
    ep = tmp_path / "ep"
    shutil.copytree(playing_episode, ep)
    with open(ep / "trace.jsonl", "a") as fh:
        fh.write('{"step": 99}\n')
    with pytest.raises(EpisodeError, match="t_game"):
        load_episode(ep)
