import json
import subprocess
import sys

import pytest

from playsuite.judge import MilestoneError, progress_level, validate_milestones


def milestones(**overrides: object) -> dict:
    base = {
        "gameplay_happened": False,
        "menu_or_title_seen": False,
        "left_menu_into_gameplay": False,
        "player_control_evident": False,
        "distinct_interactions": 0,
        "score_or_resource_increased": False,
        "new_area_or_level_reached": False,
        "checkpoint_or_objective_completed": False,
        "win_or_completion_screen": False,
        "death_or_game_over_count": 0,
        "stuck_or_looping": False,
        "milestones": [],
    }
    base.update(overrides)
    return base


@pytest.mark.parametrize(
    ("fields", "level"),
    [
        ({}, 0),
        ({"gameplay_happened": True, "menu_or_title_seen": True}, 0),
        ({"player_control_evident": True, "distinct_interactions": 1}, 0),
        ({"player_control_evident": False, "distinct_interactions": 5}, 0),
        ({"player_control_evident": True, "distinct_interactions": 2}, 1),
        ({"score_or_resource_increased": True}, 2),
        ({"new_area_or_level_reached": True}, 2),
        ({"new_area_or_level_reached": True, "score_or_resource_increased": True}, 3),
        ({"checkpoint_or_objective_completed": True}, 3),
        ({"win_or_completion_screen": True}, 4),
    ],
)
def test_table9_rows(fields: dict, level: int) -> None:
    assert progress_level(milestones(**fields)) == level


def test_first_match_from_the_top_wins() -> None:
    everything = milestones(
        win_or_completion_screen=True,
        checkpoint_or_objective_completed=True,
        new_area_or_level_reached=True,
        score_or_resource_increased=True,
        player_control_evident=True,
        distinct_interactions=9,
        stuck_or_looping=True,
        death_or_game_over_count=3,
    )
    assert progress_level(everything) == 4
    everything["win_or_completion_screen"] = False
    assert progress_level(everything) == 3
    everything["checkpoint_or_objective_completed"] = False
    everything["score_or_resource_increased"] = False
    assert progress_level(everything) == 2
    everything["new_area_or_level_reached"] = False
    assert progress_level(everything) == 1


def test_deaths_and_looping_do_not_change_the_level() -> None:
    assert progress_level(milestones(death_or_game_over_count=7, stuck_or_looping=True)) == 0


def test_schema_rejects_bad_objects() -> None:
    validate_milestones(
        milestones(
            milestones=[{"t_sec": 3.0, "field": "gameplay_happened", "on_screen": "player runs"}]
        )
    )
    with pytest.raises(MilestoneError, match="distinct_interactions"):
        validate_milestones(milestones(distinct_interactions=21))
    with pytest.raises(MilestoneError):
        validate_milestones({k: v for k, v in milestones().items() if k != "stuck_or_looping"})
    with pytest.raises(MilestoneError, match="field"):
        bad = [{"t_sec": 1, "field": "level", "on_screen": ""}]
        validate_milestones(milestones(milestones=bad))


@pytest.mark.slow
def test_level_command(tmp_path) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps(milestones(score_or_resource_increased=True)))
    out = subprocess.run(
        [sys.executable, "-m", "playsuite.cli", "level", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == {"level": 2, "name": "partial"}
    bad = subprocess.run(
        [sys.executable, "-m", "playsuite.cli", "level", "-"],
        input="{}",
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert "required" in bad.stderr
