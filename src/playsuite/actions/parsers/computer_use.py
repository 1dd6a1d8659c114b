"""Qwen ``computer_use`` tool calls (EvoCUA, GUI-Owl-1.5): ``<tool_call>{…}</tool_call>``.

Format (meituan/EvoCUA ``mm_agents/evocua/prompts.py`` and ``evocua_agent.py``;
X-PLUG/MobileAgent ``Mobile-Agent-v3.5``; the Qwen3-VL ``computer_use`` tool): an optional
``Action: <one sentence>`` line, then ``<tool_call>`` holding the JSON
``{"name": "computer_use", "arguments": {"action": …, …}}``; thinking variants put a
``<think>…</think>`` block first. Several tool calls are read in order; a missing
``</tool_call>`` (cut off) is tolerated, and a bare JSON object (in a fence or not) is read too.
Mapping of ``arguments.action``:

=================================================  =========================================
``key`` (``keys: [...]``)                          chord (keys down in order, up in reverse)
``key_down`` / ``key_up``                          ``hold`` for ``keydown_seconds`` / ``wait``
``type`` (``text``)                                one key tap per character
``mouse_move``                                     pointer move
``left_click``, ``right_click``, ``middle_click``  click; ``double_click`` / ``triple_click``
                                                   are ``count: 2`` / ``3``; without a
                                                   ``coordinate`` -> ``invalid`` (the pointer
                                                   position is unknown to the parser)
``scroll`` (``pixels``)                            ``|pixels|`` notches, up when positive (the
                                                   source runs ``pyautogui.scroll(pixels)``)
``hscroll``, ``left_click_drag``                   ``invalid``
``wait``                                           wait
``terminate``, ``answer``                          wait (a game has no task to finish)
=================================================  =========================================

Coordinates: relative grid, the tool description telling the model "The screen's resolution is
1000x1000". Both sources map back with ``x / 999 * width`` (EvoCUA ``adjust_coordinates``;
GUI-Owl's ``src_format="qwen-vl"`` in ``coordinate_resize.py``), so the default ``grid`` is 999:
``x_screen = floor(x / 999 * screen_w)``; values up to 999 are on screen, 1000 is clamped to the
last pixel, above is ``invalid``. EvoCUA's "absolute" mode (pixels of the resized image) is
``parser_options: {coordinates: smart_resize}``.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from playsuite.actions.canonical import Action, ActionError, Click, Move, Scroll, Wait
from playsuite.actions.parsers.common import (
    DRAG_REASON,
    HSCROLL_REASON,
    MAX_RESPONSE_CHARS,
    ParseContext,
    clean,
    finish,
    invalid,
    keydown_action,
    keys_action,
    merge_clicks,
    no_action,
    number,
    type_text,
)
from playsuite.actions.parsers.coords import CoordinateError, Frame
from playsuite.actions.parsers.tool_blocks import tool_call_objects

DEFAULTS: dict[str, Any] = {"coordinates": "grid", "grid": 999}

_TOOL_NAMES = {"computer_use", "computer"}
_CLICKS = {
    "left_click": ("left", 1),
    "click": ("left", 1),
    "right_click": ("right", 1),
    "middle_click": ("middle", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}


def _looks_like_call(value: dict[str, Any]) -> bool:
    return "arguments" in value or "action" in value


def _arguments(value: Any) -> dict[str, Any] | str:
    """The ``arguments`` object of a tool call, or the reason it has none."""
    if not isinstance(value, dict):
        return "tool call is not a JSON object"
    if "arguments" not in value:
        return value if "action" in value else "tool call has no 'arguments'"
    name = value.get("name")
    if name is not None and name not in _TOOL_NAMES:
        return f"unknown tool {name!r} (expected computer_use)"
    args = value["arguments"]
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except Exception:
            return "tool call 'arguments' is not JSON"
    return args if isinstance(args, dict) else "tool call 'arguments' is not an object"


def _point(args: dict[str, Any], frame: Frame) -> tuple[int, int] | None:
    value = args.get("coordinate")
    if value is None:
        return None
    if isinstance(value, str):
        with contextlib.suppress(Exception):  # "[1, 2]" as a string; else reported below
            value = json.loads(value)
    if isinstance(value, list | tuple) and len(value) == 2:
        x, y = number(value[0]), number(value[1])
        if x is not None and y is not None:
            return frame.point(x, y)
    raise CoordinateError(f"coordinate must be [x, y], got {value!r}")


def _keys(value: Any) -> list[str]:
    if isinstance(value, str):
        return [k for k in re.split(r"[+\s]+", value.strip()) if k]
    if isinstance(value, list | tuple):
        return [str(k) for k in value]
    return []


def _call_actions(args: dict[str, Any], raw: str, ctx: ParseContext, frame: Frame) -> list[Action]:
    action = str(args.get("action") or "").strip().lower()
    if action in _CLICKS:
        button, count = _CLICKS[action]
        pt = _point(args, frame)
        if pt is None:
            return [invalid(raw, f"{action} without a coordinate: the pointer position is unknown")]
        return [Click(pt[0], pt[1], button, count)]
    if action == "mouse_move":
        pt = _point(args, frame)
        return [Move(x=pt[0], y=pt[1])] if pt else [invalid(raw, "mouse_move without a coordinate")]
    if action == "key":
        keys = _keys(args.get("keys", args.get("text")))
        return [keys_action(keys, raw)] if keys else [invalid(raw, "key action without keys")]
    if action == "key_down":
        keys = _keys(args.get("keys", args.get("text")))
        return [keydown_action(keys, raw, ctx)] if keys else [invalid(raw, "key_down without keys")]
    if action == "key_up":
        return [Wait()]
    if action == "type":
        return type_text(args.get("text"), ctx)
    if action == "scroll":
        pixels = number(args.get("pixels", args.get("amount")))
        if pixels is None or round(pixels) == 0:
            return [invalid(raw, "scroll needs a non-zero 'pixels'")]
        direction = "up" if pixels > 0 else "down"
        pt = _point(args, frame)
        if pt is None:
            return [Scroll(direction, round(abs(pixels)))]  # type: ignore[arg-type]
        return [Scroll(direction, round(abs(pixels)), pt[0], pt[1])]  # type: ignore[arg-type]
    if action == "hscroll":
        return [invalid(raw, HSCROLL_REASON)]
    if action in ("left_click_drag", "drag"):
        return [invalid(raw, DRAG_REASON)]
    if action == "wait":
        return [Wait()]
    if action in ("terminate", "answer"):
        return [finish()]
    return [invalid(raw, f"unknown computer_use action {args.get('action')!r}")]


def parse(text: str, ctx: ParseContext) -> list[Action]:
    if len(text) > MAX_RESPONSE_CHARS:
        return [invalid(text, f"answer longer than {MAX_RESPONSE_CHARS} characters")]
    cleaned, cut_off = clean(text)
    objects = tool_call_objects(cleaned, _looks_like_call)
    if not objects:
        return no_action(text, "no computer_use tool call", cut_off)
    frame = ctx.frame
    actions: list[Action] = []
    for value, raw in objects:
        args = _arguments(value)
        if isinstance(args, str):
            actions.append(invalid(raw, args))
            continue
        try:
            actions.extend(_call_actions(args, raw, ctx, frame))
        except (CoordinateError, ActionError, ValueError) as exc:
            actions.append(invalid(raw, str(exc)))
    return merge_clicks(actions)
