"""Table 5: technical exclusions counted from the per-game decisions, in the paper's order."""

from __future__ import annotations

from playsuite.catalog.filters import Decision
from playsuite.catalog.funnel import TECHNICAL_REASONS, technical_exclusions_table
from playsuite.catalog.ingest import RawGame


def test_counts_per_reason_and_source() -> None:
    stages = {
        "itch-1": "construct_runtime",
        "itch-2": "construct_runtime",
        "itch-3": "drag_only",
        "itch-4": "rating",  # not a technical exclusion
        "itch-5": "",
        "pyweek-6": "multiplayer_only",
        "pyweek-7": "gamepad_required",
    }
    games = [RawGame(id=g, source=g.split("-")[0], source_id=g, title=g) for g in stages]
    decisions = {g.id: Decision(g.id, g.source, stages[g.id]) for g in games}
    table = technical_exclusions_table(games, decisions)
    assert list(table.columns) == ["reason", "stage", "itch.io", "PyWeek", "games"]
    assert table["reason"].tolist() == [
        "Construct runtime freeze failure",
        "Dragging is the only listed control",
        "Requires multiple players",
        "Not an interactive game",
        "Gamepad required",
    ]
    assert table["stage"].tolist() == list(TECHNICAL_REASONS)
    assert table["itch.io"].tolist() == [2, 1, 0, 0, 0]
    assert table["PyWeek"].tolist() == [0, 0, 1, 0, 1]
    assert table["games"].tolist() == [2, 1, 1, 0, 1]
