"""A model's check of the text-based technical exclusions (Table 5's drag, multiplayer and gamepad
rows): overruled exclusions let the game go on, confirmed and failed checks keep it out."""

from __future__ import annotations

from typing import Any

import pandas as pd

from playsuite.catalog.curate import read_decisions, step_screen, write_jsonl
from playsuite.catalog.filters import FilterSettings, ManualExclusion, screen
from playsuite.catalog.ingest import RawGame
from playsuite.catalog.technical import (
    CONFIRMED,
    FAILED,
    OVERRULED,
    check_text_exclusions,
    needs_check,
)
from playsuite.inference.client import InvalidJSONAnswer

SETTINGS = FilterSettings()


def itch(gid: str, **kw: Any) -> RawGame:
    base = dict(
        source="itch",
        source_id=gid,
        title=gid,
        rating=4.0,
        rating_count=20,
        release_status="released",
        platforms=("web",),
        build="web",
        input_methods=("keyboard", "mouse"),
    )
    return RawGame(id=gid, **(base | kw))


GAMES = [
    # the rule reads "drag" as the only control; the model reads the keys too
    itch("itch-drag", controls="Drag the slider to aim, release to fire. Numbers 1-3 swap guns"),
    itch("itch-pad", description="A gamepad is required to play."),
    itch("itch-two", players="2"),  # stated player count: metadata, never questioned
    itch("itch-manual", controls="Drag pieces"),
    # overruled as multiplayer, then excluded by the gamepad rule, which the model confirms
    itch("itch-both", description="Requires two players. Controller only."),
    itch("itch-broken", controls="Drag to fling"),
]


class FakeValidator:
    """Test double of HarmValidator: verdicts from a table keyed by (game title, criterion);
    ``raise`` stands for an answer that never became valid JSON."""

    def __init__(self, verdicts: dict[tuple[str, str], Any]) -> None:
        self.verdicts = verdicts
        self.asked: list[tuple[str, str]] = []

    def __call__(self, game: RawGame, criterion: Any) -> tuple[bool, str]:
        self.asked.append((game.id, criterion.name))
        verdict = self.verdicts[(game.id, criterion.name)]
        if verdict == "raise":
            raise InvalidJSONAnswer("no schema-valid JSON after 3 answer(s)", "{")
        return verdict, f"verdict {verdict}"


def test_rules_first_then_the_model() -> None:
    manual = {"itch-manual": ManualExclusion("itch-manual", "drag_only", "checked by hand")}
    decisions = [screen(g, SETTINGS, manual) for g in GAMES]
    assert [d.stage for d in decisions] == [
        "drag_only",
        "gamepad_required",
        "multiplayer_only",
        "drag_only",
        "multiplayer_only",
        "drag_only",
    ]
    assert [needs_check(g, d) for g, d in zip(GAMES, decisions, strict=True)] == [
        True,
        True,
        False,
        False,
        True,
        True,
    ]
    model = FakeValidator(
        {
            ("itch-drag", "Dragging is the only listed control"): False,
            ("itch-pad", "Gamepad required"): True,
            ("itch-both", "Requires multiple players"): False,
            ("itch-both", "Gamepad required"): True,
            ("itch-broken", "Dragging is the only listed control"): "raise",
        }
    )
    after, checks = check_text_exclusions(GAMES, decisions, SETTINGS, manual, model)
    stages = {d.id: d.stage for d in after}
    assert stages == {
        "itch-drag": "",  # overruled: kept
        "itch-pad": "gamepad_required",
        "itch-two": "multiplayer_only",
        "itch-manual": "drag_only",
        "itch-both": "gamepad_required",
        "itch-broken": "drag_only",
    }
    assert [(c.id, c.stage, c.verdict) for c in checks] == [
        ("itch-drag", "drag_only", OVERRULED),
        ("itch-pad", "gamepad_required", CONFIRMED),
        ("itch-both", "multiplayer_only", OVERRULED),
        ("itch-both", "gamepad_required", CONFIRMED),
        ("itch-broken", "drag_only", FAILED),
    ]
    broken = next(d for d in after if d.id == "itch-broken")
    assert broken.reason.endswith("(model check failed)")
    assert "InvalidJSONAnswer" in checks[-1].reasoning


def test_step_without_a_model_writes_an_empty_check_list(tmp_path) -> None:
    records = tmp_path / "records.jsonl"
    write_jsonl([g.to_dict() for g in GAMES], records)
    out, checks = tmp_path / "screen.tsv", tmp_path / "checks.tsv"
    step_screen(records, None, None, out, None, checks)
    assert read_decisions(out)["itch-drag"].stage == "drag_only"
    table = pd.read_csv(checks, sep="\t")
    assert list(table.columns) == ["id", "stage", "rule_reason", "verdict", "reasoning"]
    assert table.empty
