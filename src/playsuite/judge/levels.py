"""The fixed milestone -> progress-level rule (paper Table 9).

Judges only report what they saw; the level is never the judge's opinion. Keeping the rule in one
pure function makes every level reproducible from a stored milestone file.
"""

from __future__ import annotations

from typing import Any

LEVEL_NAMES: dict[int, str] = {
    0: "none",
    1: "interaction",
    2: "partial",
    3: "substantial",
    4: "completion",
}

#: Level at or above which an episode counts as "Partial+".
PARTIAL_PLUS = 2


def progress_level(m: dict[str, Any]) -> int:
    """Map a milestone object to 0..4: first matching row of Table 9 from the top."""
    if m["win_or_completion_screen"]:
        return 4
    new_area = bool(m["new_area_or_level_reached"])
    score_up = bool(m["score_or_resource_increased"])
    if m["checkpoint_or_objective_completed"] or (new_area and score_up):
        return 3
    if new_area or score_up:
        return 2
    if m["player_control_evident"] and m["distinct_interactions"] >= 2:
        return 1
    return 0


def level_name(level: int) -> str:
    return LEVEL_NAMES[level]
