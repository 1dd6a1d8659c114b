"""No parser ever raises on any text, and what they return is always executable.

The parse functions are called directly, without the registry's safety net, so that a parser bug
shows up here instead of being recorded as an invalid action in a run.
"""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playsuite.actions import Click, Invalid, Move, Scroll, action_from_dict
from playsuite.actions.canonical import Action
from playsuite.actions.parsers import PARSER_NAMES, get_parser, parse_response
from playsuite.actions.parsers.common import ParseContext

#: Pieces of every family's syntax, so that random text reaches deep into each parser.
FRAGMENTS = [
    "Action:",
    "Actions:",
    "actions:\n",
    "Observation:",
    "Reasoning:",
    "Strategy:",
    "Thought:",
    "## Code:\n",
    "```python\n",
    "```",
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "click",
    "CLICK",
    "rightclick",
    "hold:",
    "scroll:",
    "move:",
    "wait",
    "space",
    "shift+a",
    "click(",
    "start_box='(",
    "point='<point>",
    "</point>",
    "<|box_start|>",
    "<|box_end|>",
    "(",
    ")",
    "[[",
    "]]",
    "[",
    "]",
    "{",
    "}",
    "'",
    '"',
    ",",
    ":",
    "+",
    "-",
    ".",
    " ",
    "\n",
    "\n\n",
    "\\",
    "pyautogui.",
    "computer.",
    "press(",
    "hotkey(",
    "type(content='",
    "scroll(",
    "keys=[",
    "x=",
    "y=",
    "TYPE [",
    "SCROLL [UP]",
    "PRESS_",
    "HOTKEY [CTRL_",
    "<point>[[",
    "{'action': 'CLICK', 'value': None, 'position': [",
    "'position': [[",
    "'action': '",
    '{"name": "computer_use", "arguments": {"action": "',
    '"coordinate": [',
    '"keys": [',
    '"pixels": ',
    "left_click",
    "key",
    "type",
    "drag(",
    "0.5",
    "1e9",
    "nan",
    "-0",
    "999",
    "1000",
    "1001",
    "é",
    "\u200b",
    "#",
]
NOISY = st.lists(
    st.sampled_from(FRAGMENTS) | st.integers(-5000, 5000).map(str) | st.text(max_size=4),
    max_size=40,
).map("".join)
SIZES = st.tuples(st.integers(1, 4000), st.integers(1, 4000))


def _check(actions: list[Action], screen: tuple[int, int]) -> None:
    assert actions, "a parser returned no action"
    for action in actions:
        assert action_from_dict(action.to_dict()) == action  # a valid contract object
        if isinstance(action, Click | Scroll | Move) and getattr(action, "x", None) is not None:
            assert 0 <= action.x < screen[0] and 0 <= action.y < screen[1], action
        if isinstance(action, Invalid):
            assert action.reason


@pytest.mark.parametrize("name", PARSER_NAMES)
@settings(max_examples=150)
@given(text=st.text(max_size=300) | NOISY, screen=SIZES, image=st.none() | SIZES)
def test_no_parser_raises_on_any_text(name, text, screen, image) -> None:
    parser = get_parser(name)
    module = importlib.import_module(f"playsuite.actions.parsers.{name}")
    ctx = ParseContext(screen, image or screen, parser.options())
    _check(module.parse(text, ctx), screen)  # raw: no safety net
    _check(parse_response(name, text, screen, image), screen)


PATHOLOGICAL = [
    "{" * 50_000,
    "(" * 50_000,
    "<think>" * 10_000,
    "Action: " * 10_000,
    "Action:" + " " * 50_000 + "x",
    "action" + " " * 50_000,
    "click:" + "1" * 50_000 + ",1",
    "Action: " + "space " * 10_000,
    "pyautogui.click(" * 5_000,
    "<tool_call>" * 5_000,
    '{"name": "computer_use", "arguments": ' * 2_000,
    "HOTKEY [" + "A_" * 20_000 + "]",
    "actions:\n" + "CLICK <point>[[1,1]]</point>\n" * 3_000,
    "x" * 200_000,
    "Action: a" + " " * 50_000 + "b",
    "thoughts:\n" + " " * 50_000,
    "Action: click(" + " " * 50_000,
    "**" * 30_000,
    "Action " + "*" * 50_000 + "x",
    "type(content='" + "' " * 20_000,
    "Observation:" + "\n" * 50_000 + "Action: space",
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", PARSER_NAMES)
def test_pathological_answers_end_quickly_and_cleanly(name) -> None:
    for text in PATHOLOGICAL:
        _check(parse_response(name, text, (640, 480)), (640, 480))
