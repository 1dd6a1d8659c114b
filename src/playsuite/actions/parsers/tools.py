"""The generalist tool interface: typed tools called through the OpenAI ``tools`` API.

GameWorld compares two ways of playing the same game with the same model: each family's own
raw-text action format (the other parsers here) and a *semantic* interface in which the model
calls typed functions. This module is that interface's one description: the tool definitions
sent with each request (:func:`tool_specs`), the text form a served policy writes the returned
calls in (:func:`tool_calls_text`), and the parser that reads that text back into canonical
actions, so the trace, the history and invalid-output counting work exactly as for text answers.

Tools (arguments are JSON; coordinates are pixels of the screenshot the model was sent):

================================================  =============================================
``press_key(keys)``                               ``key``: one key tapped, or a chord
``hold_key(keys, seconds)``                       ``hold`` (capped at 2 s, like every hold)
``click(x, y, button?, count?)``                  ``click`` (left by default, count 1)
``move_mouse(x, y)``                              ``move`` to that pixel
``scroll(direction, x, y, notches?)``             ``scroll`` up or down (1 notch by default)
``wait()``                                        ``wait``
================================================  =============================================

Key names are the canonical set (:mod:`playsuite.actions.keys`), given to the model as an enum,
and every tool is declared ``strict``, so under ``tool_choice="required"`` vLLM's guided decoding
holds the arguments to the schema and can only produce names a runtime knows; ranges
(coordinates inside the image, hold length) are in the schema too. The text form
is one ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` block per call, the form
Qwen-family chat templates use; without any block, bare JSON objects with a ``name`` are read.
Several calls in one answer run in order, as for every other parser. A call of an unknown tool,
with missing or mistyped arguments, or with a key outside the set is an ``invalid`` action
naming why.

Coordinates: ``x_screen = floor(x * screen_w / image_w)`` (identity when the image is the screen).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from playsuite.actions.canonical import (
    MAX_HOLD_SECONDS,
    Action,
    ActionError,
    Click,
    Hold,
    Key,
    Move,
    Scroll,
    Wait,
)
from playsuite.actions.keys import CANONICAL_KEYS, KeyNameError
from playsuite.actions.parsers.common import (
    MAX_RESPONSE_CHARS,
    ParseContext,
    clean,
    invalid,
    no_action,
    number,
)
from playsuite.actions.parsers.coords import CoordinateError, Frame
from playsuite.actions.parsers.tool_blocks import tool_call_objects

DEFAULTS: dict[str, Any] = {"coordinates": "pixels"}

#: Most keys one call may press together (the other parsers' chords are this short too).
MAX_CHORD = 3
#: Most wheel notches one scroll call may ask for.
MAX_NOTCHES = 10
#: Shortest hold the schema allows, in seconds.
MIN_HOLD_SECONDS = 0.05
TOOL_NAMES: tuple[str, ...] = ("press_key", "hold_key", "click", "move_mouse", "scroll", "wait")


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]):
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            # strict: the server pins the arguments to the schema when it enforces tool calls
            # (vLLM: tool_choice required or named), not only the call's envelope
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


def tool_specs(image: tuple[int, int]) -> list[dict[str, Any]]:
    """The OpenAI ``tools`` list for a screenshot of ``image`` = (width, height) pixels."""
    width, height = int(image[0]), int(image[1])
    keys = {
        "type": "array",
        "items": {"type": "string", "enum": sorted(CANONICAL_KEYS)},
        "minItems": 1,
        "maxItems": MAX_CHORD,
        "description": 'lower-case key names pressed together, e.g. ["space"] or ["shift", "a"]',
    }
    x = {
        "type": "integer",
        "minimum": 0,
        "maximum": width - 1,
        "description": "pixels from the left",
    }
    y = {
        "type": "integer",
        "minimum": 0,
        "maximum": height - 1,
        "description": "pixels from the top",
    }
    return [
        _function(
            "press_key",
            "Tap one key, or several keys together as a chord.",
            {"keys": keys},
            ["keys"],
        ),
        _function(
            "hold_key",
            "Hold keys down together for some seconds of game time (to walk, run or charge).",
            {
                "keys": keys,
                "seconds": {
                    "type": "number",
                    "minimum": MIN_HOLD_SECONDS,
                    "maximum": MAX_HOLD_SECONDS,
                },
            },
            ["keys", "seconds"],
        ),
        _function(
            "click",
            "Click a mouse button at a pixel of the screenshot.",
            {
                "x": x,
                "y": y,
                "button": {"type": "string", "enum": ["left", "right", "middle"]},
                "count": {"type": "integer", "minimum": 1, "maximum": 2},
            },
            ["x", "y"],
        ),
        _function(
            "move_mouse",
            "Move the pointer to a pixel without clicking (to aim).",
            {"x": x, "y": y},
            ["x", "y"],
        ),
        _function(
            "scroll",
            "Turn the mouse wheel up or down with the pointer at a pixel.",
            {
                "direction": {"type": "string", "enum": ["up", "down"]},
                "notches": {"type": "integer", "minimum": 1, "maximum": MAX_NOTCHES},
                "x": x,
                "y": y,
            },
            # The point is required as a pair: guided decoding cannot express "both or neither",
            # and a lone x or y is no point (the parser still takes a call with neither, as a
            # model writing text might send it).
            ["direction", "x", "y"],
        ),
        _function("wait", "Do nothing this step; the game keeps running.", {}, []),
    ]


def tool_calls_text(calls: Iterable[tuple[str, Any]], content: str = "") -> str:
    """The text form of a model's tool calls, after its free text ``content`` (if any).

    ``calls`` are (name, arguments) pairs; arguments may be the JSON string the OpenAI API
    returns (kept as sent when it is not JSON, so the parser reports it) or a mapping.
    """
    blocks = []
    for name, arguments in calls:
        if isinstance(arguments, str):
            with contextlib.suppress(ValueError):  # not JSON: kept as sent, the parser says so
                arguments = json.loads(arguments) if arguments.strip() else {}
        call = {"name": name, "arguments": arguments}
        blocks.append(f"<tool_call>\n{json.dumps(call, ensure_ascii=False)}\n</tool_call>")
    return "\n".join(part for part in (content.strip(), *blocks) if part)


def tool_call_for(action: Action) -> tuple[str, dict[str, Any]]:
    """The tool call that does ``action`` (pixels of the image): the inverse of the parser, for
    policies that decide in canonical actions (the baselines). A relative pointer move has no
    tool and an invalid action none either: both become ``wait``."""
    if isinstance(action, Key):
        return "press_key", {"keys": list(action.keys)}
    if isinstance(action, Hold):
        return "hold_key", {"keys": list(action.keys), "seconds": action.seconds}
    if isinstance(action, Click):
        return "click", {
            "x": action.x,
            "y": action.y,
            "button": action.button,
            "count": action.count,
        }
    if isinstance(action, Move) and not action.relative:
        return "move_mouse", {"x": action.x, "y": action.y}
    if isinstance(action, Scroll):
        args: dict[str, Any] = {
            "direction": action.direction,
            "notches": min(action.notches, MAX_NOTCHES),
        }
        if action.x is not None:
            args.update(x=action.x, y=action.y)
        return "scroll", args
    return "wait", {}


def _arguments(value: Any) -> tuple[str, dict[str, Any]] | str:
    """(tool name, arguments) of one decoded call, or the reason it is not a call."""
    if not isinstance(value, dict):
        return "tool call is not a JSON object"
    name = value.get("name")
    if name not in TOOL_NAMES:
        return f"unknown tool {name!r}; tools: {', '.join(TOOL_NAMES)}"
    args = value.get("arguments", value.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return f"{name}: arguments are not JSON"
    if not isinstance(args, dict):
        return f"{name}: arguments are not an object"
    return name, args


def _keys(args: Mapping[str, Any], name: str) -> list[str]:
    keys = args.get("keys")
    if isinstance(keys, str):
        keys = [keys]
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        raise ActionError(f"{name} needs 'keys', a non-empty list of key names")
    if len(keys) > MAX_CHORD:
        raise ActionError(f"{name}: at most {MAX_CHORD} keys at once, got {len(keys)}")
    return keys


def _point(args: Mapping[str, Any], name: str, frame: Frame) -> tuple[int, int]:
    x, y = number(args.get("x")), number(args.get("y"))
    if x is None or y is None:
        raise ActionError(f"{name} needs numbers 'x' and 'y'")
    return frame.point(x, y)


def _call(name: str, args: Mapping[str, Any], frame: Frame) -> Action:
    if name == "press_key":
        return Key(tuple(_keys(args, name)))
    if name == "hold_key":
        seconds = number(args.get("seconds"))
        if seconds is None:
            raise ActionError("hold_key needs 'seconds'")
        return Hold(tuple(_keys(args, name)), seconds)
    if name == "click":
        x, y = _point(args, name, frame)
        count = number(args.get("count", 1))
        return Click(x, y, str(args.get("button") or "left"), 1 if count is None else count)
    if name == "move_mouse":
        x, y = _point(args, name, frame)
        return Move(x=x, y=y)
    if name == "scroll":
        notches = number(args.get("notches", 1))
        if notches is None or not 1 <= notches <= MAX_NOTCHES:
            raise ActionError(f"scroll 'notches' must be 1 to {MAX_NOTCHES}")
        if args.get("x") is None and args.get("y") is None:
            return Scroll(args.get("direction"), notches)  # type: ignore[arg-type]
        x, y = _point(args, name, frame)
        return Scroll(args.get("direction"), notches, x, y)  # type: ignore[arg-type]
    return Wait()


def parse(text: str, ctx: ParseContext) -> list[Action]:
    if len(text) > MAX_RESPONSE_CHARS:
        return [invalid(text, f"answer longer than {MAX_RESPONSE_CHARS} characters")]
    cleaned, cut_off = clean(text)
    objects = tool_call_objects(cleaned, lambda value: "name" in value)
    if not objects:
        return no_action(text, "no tool call", cut_off)
    frame = ctx.frame
    actions: list[Action] = []
    for value, raw in objects:
        call = _arguments(value)
        if isinstance(call, str):
            actions.append(invalid(raw, call))
            continue
        try:
            actions.append(_call(*call, frame))
        except (ActionError, CoordinateError, KeyNameError, ValueError) as exc:
            actions.append(invalid(raw, str(exc)))
    return actions
