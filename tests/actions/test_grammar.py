"""The standard action grammar: every form of the issue, real-model noise, the writer."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playsuite.actions import Click, Hold, Invalid, Key, Move, Scroll, Wait, actions_to_json
from playsuite.actions.canonical import MAX_CLICK_COUNT, Action
from playsuite.actions.grammar import (
    format_action,
    format_standard,
    parse_standard,
    response_fields,
)
from playsuite.actions.keys import CANONICAL_KEYS
from playsuite.actions.parsers.coords import Frame

SCREEN = Frame(1280, 720, 1280, 720, "pixels of the 1280x720 image")


def parse(text: str, frame: Frame = SCREEN) -> list[Action]:
    return parse_standard(text, frame)


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("space", [Key(("space",))]),
        ("shift+a", [Key(("shift", "a"))]),
        ("hold:left:0.8", [Hold(("left",), 0.8)]),
        ("hold:right+space:0.5", [Hold(("right", "space"), 0.5)]),
        ("wait", [Wait()]),
        ("CLICK: 640, 360", [Click(640, 360)]),
        ("rightclick:10,20", [Click(10, 20, "right")]),
        ("click:5,6 click:5,6", [Click(5, 6, "left", 2)]),
        ("click:5,6 click:5,6 click:5,6", [Click(5, 6, "left", 3)]),
        ("click:5,6 click:7,6", [Click(5, 6), Click(7, 6)]),
        ("scroll:up", [Scroll("up", 1)]),
        ("scroll:down:5", [Scroll("down", 5)]),
        ("scroll:down:5:100,200", [Scroll("down", 5, 100, 200)]),
        ("move:100,200", [Move(x=100, y=200)]),
        ("move:+20,-10", [Move(dx=20, dy=-10)]),
        ("move:+40,0:0.5", [Move(dx=40, dy=0, seconds=0.5)]),
        ("move:-5,7", [Move(dx=-5, dy=7)]),
        ("doubleclick:1,2", [Click(1, 2, "left", 2)]),
        ("middleclick:3,4", [Click(3, 4, "middle")]),
        ("click(640, 360)", [Click(640, 360)]),
        ("click: (640, 360)", [Click(640, 360)]),
        ("click:[640,360]", [Click(640, 360)]),
        ("[space]", [Key(("space",))]),
        ("hold:up:3", [Hold(("up",), 2.0)]),  # capped at the contract's 2 s
        ("hold:a:0.5s", [Hold(("a",), 0.5)]),
        ("press:enter", [Key(("enter",))]),
        ("Return", [Key(("enter",))]),
        ("ArrowLeft ArrowLeft", [Key(("left",)), Key(("left",))]),
        ("space; click:1,1", [Key(("space",)), Click(1, 1)]),
        ("space then right", [Key(("space",)), Key(("right",))]),
    ],
)
def test_every_form_of_the_grammar(action: str, expected: list[Action]) -> None:
    assert parse(f"Action: {action}") == expected


STRUCTURED = """Observation: The title screen shows "PRESS START" blinking.
Reasoning: Starting the game usually takes enter or space; space is the safer guess.
Action: space"""

STRATEGY = """Observation: A platformer level; the player stands left of a gap.
Strategy: Explore right, jump over gaps, avoid enemies.
Reasoning: The gap is close, so I hold right and jump at once.
Action: hold:right+space:0.5"""


def test_structured_answers_and_the_strategy_variant() -> None:
    assert parse(STRUCTURED) == [Key(("space",))]
    assert parse(STRATEGY) == [Hold(("right", "space"), 0.5)]
    fields = response_fields(STRATEGY)
    assert fields["strategy"] == "Explore right, jump over gaps, avoid enemies."
    assert fields["action"] == "hold:right+space:0.5"
    assert fields["observation"].startswith("A platformer level")


@pytest.mark.parametrize(
    "text",
    [
        "Action: SPACE",
        "action:space",
        "**Action:** space",
        "**Action**: `space`",
        "### Action\n",  # (label without colon is not a label: see below)
        'Action: "space"',
        "Action: 'space'",
        "Action:\n```\nspace\n```",
        "<think>The player must jump. Action: left</think>\nAction: space",
        "<think>\nlong reasoning\n</think>\n\nObservation: x\nReasoning: y\nAction: space",
        "reasoning that the template's <think> already opened</think>Action: space",
        "Action: space\nThis makes the character jump.",
        "Action: space (to jump)",
        "Action: space - jump now",
        "Action: space to jump over the gap",
        "Action: space. The character jumps.",
        "Action: space  # jump",
        "Observation: menu. Reasoning: start it. Action: space",
        "Action:   space   ",
        "- Action: space",
        "space",
    ],
)
def test_real_model_noise_is_tolerated(text: str) -> None:
    if text.startswith("### Action"):
        assert isinstance(parse(text)[0], Invalid)
        return
    assert parse(text) == [Key(("space",))]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty answer"),
        ("   \n ", "empty answer"),
        ("I think I should jump over the gap.", "no 'Action:' field"),
        ("<think>still thinking about what to", "inside a thinking block"),
        ("Observation: x\nAction:", "Action field is empty"),
        ("Action: jmup", "unknown key name 'jmup'"),
        ("Action: space jmup", "'jmup'"),  # a line with an unknown word runs nothing
        ("Action: click", "needs arguments"),
        ("Action: click:10", "two numbers"),
        ("Action: click:a,b", "not a number"),
        ("Action: click:1281,5", "outside the model's frame"),
        ("Action: click:-1,5", "outside the model's frame"),
        ("Action: hold:left", "hold needs 'hold:KEYS:SECONDS'"),
        ("Action: hold:left:long", "not a number of seconds"),
        ("Action: hold:left:0", "positive"),
        ("Action: scroll:left", "horizontal scroll"),
        ("Action: scroll:down:0", "whole number"),
        ("Action: move:10,10:0.5", "only a relative move"),
        ("Action: teleport:1,2", "unknown action 'teleport'"),
        ("Action: click:nan,5", "not a number"),
        ("Action: move:+1e9,0", "not a number"),
    ],
)
def test_what_is_not_understood_is_one_invalid_action_with_a_reason(text: str, reason: str) -> None:
    actions = parse(text)
    assert len(actions) == 1 and isinstance(actions[0], Invalid), actions
    assert reason in actions[0].reason


def test_nothing_on_an_ambiguous_line_runs() -> None:
    actions = parse("Action: click:10,10 clik:20,20")
    assert len(actions) == 1 and isinstance(actions[0], Invalid)
    assert "'clik:20,20'" in actions[0].reason and "unknown action 'clik'" in actions[0].reason


def test_following_lines_are_read_while_they_are_grammar() -> None:
    text = "Action:\nclick:10,10\nclick:10,10\nThis double-clicks the icon.\nspace"
    assert parse(text) == [Click(10, 10, "left", 2)]


def test_last_action_label_wins() -> None:
    text = "Reasoning: my last action: was jump\nAction: left\nAction: right"
    assert parse(text) == [Key(("right",))]


def test_coordinates_are_pixels_of_the_image_the_model_saw() -> None:
    # The model saw a 640x360 image of a 1920x1080 screen: its (320, 180) is the screen centre.
    frame = Frame(640, 360, 1920, 1080, "pixels of the 640x360 image")
    assert parse("Action: click:320,180", frame) == [Click(960, 540)]
    assert parse("Action: move:+10,-10", frame) == [Move(dx=30, dy=-30)]
    assert parse("Action: scroll:up:2:640,360", frame) == [Scroll("up", 2, 1919, 1079)]
    assert isinstance(parse("Action: click:641,10", frame)[0], Invalid)


def test_click_counts_beyond_the_contract_start_a_new_click() -> None:
    text = "Action: " + " ".join(["click:1,1"] * (MAX_CLICK_COUNT + 2))
    assert parse(text) == [Click(1, 1, "left", MAX_CLICK_COUNT), Click(1, 1, "left", 2)]


# --- the writer ------------------------------------------------------------------------------


def test_format_standard_writes_the_grammar() -> None:
    actions: list[Action] = [
        Key(("shift", "a")),
        Hold(("right", "space"), 0.5),
        Click(10, 20, "left", 2),
        Click(5, 5, "right"),
        Move(x=3, y=4),
        Move(dx=-20, dy=0, seconds=1.5),
        Scroll("down", 5, 7, 8),
        Wait(),
    ]
    text = format_standard(actions)
    assert text == (
        "Action: shift+a hold:right+space:0.5 click:10,20 click:10,20 rightclick:5,5 move:3,4 "
        "move:-20,+0:1.5 scroll:down:5:7,8 wait"
    )
    assert parse(text) == actions
    with pytest.raises(ValueError):
        format_standard([])
    with pytest.raises(ValueError):
        format_action(Invalid("x", "y"))


XS = st.integers(0, 1279)
YS = st.integers(0, 719)
KEYS = st.lists(st.sampled_from(sorted(CANONICAL_KEYS)), min_size=1, max_size=3, unique=True)
SECONDS = st.floats(0.01, 2.0, allow_nan=False).map(lambda s: round(s, 3)).filter(lambda s: s > 0)
ACTIONS = st.one_of(
    KEYS.map(lambda k: Key(tuple(k))),
    st.builds(lambda k, s: Hold(tuple(k), s), KEYS, SECONDS),
    st.builds(Click, XS, YS, st.sampled_from(["left", "right", "middle"]), st.integers(1, 10)),
    st.builds(lambda x, y: Move(x=x, y=y), XS, YS),
    st.builds(
        lambda dx, dy, s: Move(dx=dx, dy=dy, seconds=s),
        st.integers(-2000, 2000),
        st.integers(-2000, 2000),
        st.none() | SECONDS,
    ),
    st.builds(lambda d, n: Scroll(d, n), st.sampled_from(["up", "down"]), st.integers(1, 50)),
    st.builds(Scroll, st.sampled_from(["up", "down"]), st.integers(1, 50), XS, YS),
    st.just(Wait()),
)


def _separable(actions: list[Action]) -> bool:
    """No two neighbouring clicks that the parser would rightly fold into one."""
    return not any(
        isinstance(a, Click)
        and isinstance(b, Click)
        and (a.x, a.y, a.button) == (b.x, b.y, b.button)
        for a, b in itertools.pairwise(actions)
    )


@given(st.lists(ACTIONS, min_size=1, max_size=6).filter(_separable))
def test_format_then_parse_is_the_identity(actions: list[Action]) -> None:
    assert actions_to_json(parse(format_standard(actions))) == actions_to_json(actions)
