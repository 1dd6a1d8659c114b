"""A model's check of the technical exclusions that rest on reading free text (paper Table 5).

Three technical stages decide from what a game's page says: ``drag_only`` (the controls text),
``gamepad_required`` and, where the player count is not stated, ``multiplayer_only``
(description and controls). Regular expressions find the phrases but cannot read them: "drag the
slider, or use the arrow keys" is not drag-only, "no gamepad required" is not a requirement. When
``catalog.technical_validator`` names a model, every such exclusion is put to it with the
criterion below; an exclusion the model overrules is dropped and the game goes on through the
remaining stages (it may still leave at a later one). Exclusions from metadata (itch.io kind,
player count, engine files) and from the hand-kept list are never questioned. A failed check
keeps the rule's exclusion and says so. Every check is recorded (``screen_checks.tsv``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from playsuite.catalog.filters import (
    Decision,
    FilterSettings,
    ManualExclusion,
    min_players,
    screen,
)
from playsuite.catalog.harm import Validator
from playsuite.catalog.ingest import RawGame
from playsuite.files import write_records_tsv
from playsuite.inference.client import InferenceError

CONFIRMED, OVERRULED, FAILED = "confirmed", "overruled", "failed"
CHECK_COLUMNS = ("id", "stage", "rule_reason", "verdict", "reasoning")


@dataclass(frozen=True)
class TextCriterion:
    name: str
    definition: str


CRITERIA: dict[str, TextCriterion] = {
    "drag_only": TextCriterion(
        "Dragging is the only listed control",
        "Everything the player does is done by pressing the mouse button (or a finger), moving "
        "and releasing it. The page lists no key, no plain click and no other input.",
    ),
    "multiplayer_only": TextCriterion(
        "Requires multiple players",
        "One person alone cannot play: the game needs at least two human players, on one "
        "machine or over a network. Optional multiplayer modes do not count.",
    ),
    "gamepad_required": TextCriterion(
        "Gamepad required",
        "The game cannot be played with keyboard and mouse: a gamepad, controller or joystick "
        "is required. Games that merely support a gamepad do not count.",
    ),
}


def system_prompt() -> str:
    return "\n".join(
        [
            "You check automatic exclusions from a benchmark of games that an AI agent plays",
            "with keyboard and mouse on its own. A text rule excluded the game below for the",
            "stated reason. Read what the store page says and decide whether the criterion",
            "really holds; phrases such as 'no gamepad required' or 'drag or use the keys' do",
            "not satisfy it.",
            "",
            "Reply with a JSON object only:",
            '{"matches": true or false, "reasoning": "<one or two sentences>"}',
        ]
    )


def needs_check(game: RawGame, decision: Decision) -> bool:
    """Whether an exclusion rests on a text detector (and so is put to the model)."""
    if decision.stage not in CRITERIA or decision.reason.startswith("manual"):
        return False
    return not (decision.stage == "multiplayer_only" and (min_players(game) or 1) >= 2)


@dataclass(frozen=True)
class TextCheck:
    id: str
    stage: str
    rule_reason: str
    verdict: str  # confirmed | overruled | failed
    reasoning: str


def check_text_exclusions(
    games: Sequence[RawGame],
    decisions: Sequence[Decision],
    settings: FilterSettings,
    manual: dict[str, ManualExclusion],
    validator: Validator,
) -> tuple[list[Decision], list[TextCheck]]:
    """The screen's decisions after the model's checks, and the checks."""
    out, checks = [], []
    for game, decision in zip(games, decisions, strict=True):
        overruled: set[str] = set()
        while needs_check(game, decision):
            try:
                matches, why = validator(game, CRITERIA[decision.stage])
            except (InferenceError, ValueError) as exc:
                error = f"{type(exc).__name__}: {exc}"
                checks.append(TextCheck(game.id, decision.stage, decision.reason, FAILED, error))
                decision = Decision(
                    decision.id,
                    decision.source,
                    decision.stage,
                    f"{decision.reason} (model check failed)",
                )
                break
            verdict = CONFIRMED if matches else OVERRULED
            checks.append(TextCheck(game.id, decision.stage, decision.reason, verdict, why))
            if matches:
                break
            overruled.add(decision.stage)
            decision = screen(game, settings, manual, skip=overruled)
        out.append(decision)
    return out, checks


def write_checks(rows: Iterable[TextCheck], path: str | os.PathLike[str]) -> None:
    write_records_tsv(path, rows, CHECK_COLUMNS)
