"""The generalist tool interface's parser, its tool definitions and their inverse."""

from __future__ import annotations

import json

import jsonschema
import pytest

from playsuite.actions import Click, Hold, Invalid, Key, Move, Scroll, Wait
from playsuite.actions.parsers import parse_response
from playsuite.actions.parsers.tools import (
    TOOL_NAMES,
    tool_call_for,
    tool_calls_text,
    tool_specs,
)

SCREEN = (640, 480)
IMAGE = (320, 240)  # the model saw a half-size screenshot


def parse(text: str, image=IMAGE):
    return parse_response("tools", text, screen=SCREEN, image=image)


def call(name: str, **arguments) -> str:
    return tool_calls_text([(name, arguments)])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (call("press_key", keys=["space"]), Key(("space",))),
        (call("press_key", keys=["Shift", "A"]), Key(("shift", "a"))),
        (call("hold_key", keys=["right"], seconds=0.8), Hold(("right",), 0.8)),
        (call("hold_key", keys=["right"], seconds=9), Hold(("right",), 2.0)),  # the 2 s cap
        (call("click", x=160, y=120), Click(320, 240)),
        (call("click", x=10, y=20, button="right", count=2), Click(20, 40, "right", 2)),
        (call("move_mouse", x=319, y=239), Move(x=638, y=478)),
        (call("scroll", direction="down"), Scroll("down", 1)),
        (call("scroll", direction="up", notches=3, x=5, y=5), Scroll("up", 3, 10, 10)),
        (call("wait"), Wait()),
    ],
)
def test_each_tool_becomes_its_canonical_action(text: str, expected) -> None:
    assert parse(text) == [expected]


def test_arguments_as_the_api_sends_them_and_bare_json_are_read() -> None:
    text = tool_calls_text([("press_key", '{"keys": ["enter"]}')], "I start the game.")
    assert text.startswith("I start the game.\n<tool_call>")
    assert parse(text) == [Key(("enter",))]
    bare = '{"name": "click", "arguments": "{\\"x\\": 1, \\"y\\": 2}"}'
    assert parse(bare) == [Click(2, 4)]
    assert parse("<think>hmm</think>" + call("wait")) == [Wait()]


def test_several_calls_run_in_order() -> None:
    text = tool_calls_text([("press_key", {"keys": ["a"]}), ("wait", {})])
    assert parse(text) == [Key(("a",)), Wait()]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (call("jump"), "unknown tool 'jump'"),
        (call("press_key", keys=["nokey"]), "unknown key name"),
        (call("press_key"), "needs 'keys'"),
        (call("press_key", keys=["a", "b", "c", "d"]), "at most 3 keys"),
        (call("hold_key", keys=["a"]), "needs 'seconds'"),
        (call("click", x=5), "needs numbers 'x' and 'y'"),
        (call("click", x=400, y=5), "outside the model's frame"),
        (call("scroll", direction="left"), "'direction' must be"),
        (call("scroll", direction="up", notches=99), "'notches' must be"),
        (tool_calls_text([("click", "{not json")]), "arguments are not JSON"),
        ("<tool_call>nothing here</tool_call>", "not a JSON object"),
        ("I would press space.", "no tool call"),
        ("", "empty answer"),
    ],
)
def test_a_bad_call_is_an_invalid_action_that_says_why(text: str, reason: str) -> None:
    (action,) = parse(text)
    assert isinstance(action, Invalid) and reason in action.reason, action


def test_the_tool_definitions_are_valid_schemas_bounded_by_the_image() -> None:
    specs = tool_specs(IMAGE)
    assert [s["function"]["name"] for s in specs] == list(TOOL_NAMES)
    by_name = {s["function"]["name"]: s["function"]["parameters"] for s in specs}
    for schema in by_name.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    assert all(s["function"]["strict"] for s in specs)  # the server pins the arguments too
    click = jsonschema.Draft202012Validator(by_name["click"])
    assert click.is_valid({"x": 319, "y": 239}) and not click.is_valid({"x": 320, "y": 0})
    keys = jsonschema.Draft202012Validator(by_name["press_key"])
    assert keys.is_valid({"keys": ["space"]}) and not keys.is_valid({"keys": ["Return"]})
    json.dumps(specs)  # what the request carries


@pytest.mark.parametrize(
    "action",
    [
        Key(("space",)),
        Key(("ctrl", "s")),
        Hold(("left", "space"), 0.5),
        Click(10, 20, "right", 2),
        Move(x=3, y=4),
        Scroll("down", 4),
        Scroll("up", 2, 7, 8),
        Wait(),
    ],
)
def test_every_action_a_baseline_decides_round_trips_through_a_tool_call(action) -> None:
    text = tool_calls_text([tool_call_for(action)])
    assert parse_response("tools", text, screen=SCREEN) == [action]


def test_what_no_tool_does_becomes_wait() -> None:
    assert tool_call_for(Move(dx=5, dy=0)) == ("wait", {})
    assert tool_call_for(Invalid("x")) == ("wait", {})


@pytest.mark.parametrize("blocks", [True, False])
def test_json_nested_too_deep_is_an_invalid_answer_not_a_crash(blocks: bool) -> None:
    """The JSON decoder recurses: an answer nested past Python's limit must come back as an
    invalid step (tagged or bare), like any other answer that holds no call."""
    deep = '{"name": "wait", "arguments": ' + "[" * 5_000 + "]" * 5_000 + "}"
    text = f"<tool_call>{deep}</tool_call>" if blocks else deep
    actions = parse(text)
    assert actions and all(isinstance(a, Invalid) for a in actions), actions
