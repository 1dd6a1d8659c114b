"""OpenCUA-7B pyautogui code: ``## Thought: …`` ``## Action: …`` ``## Code:`` then a code block.

Format (xlang-ai/OpenCUA ``model/README.md``, ``evaluation/agentnetbench/agent/opencua.py``; the
OSWorld OpenCUAAgent it mirrors): the answer ends with a ``## Code:`` section holding a fenced
block of ``pyautogui.…`` lines, or one of the functions ``computer.wait()``,
``computer.terminate(status=…)``, ``computer.triple_click(x=…, y=…)``. Like the source, lines that
start with ``pyautogui.`` / ``computer.`` are read wherever they are (the Code section first), and
calls found inside other lines are the fallback. Calls, with pyautogui's own semantics:

====================================  ======================================================
``click(x=, y=)``                     left click; ``clicks=N`` and ``button='right'`` honoured
``rightClick`` / ``middleClick``      right / middle click
``doubleClick`` / ``tripleClick``     ``count: 2`` / ``3`` (also ``computer.triple_click``)
``moveTo(x, y)``                      pointer move
``scroll(n)``                         ``|n|`` notches, up when n > 0 (pyautogui on X11 sends one
                                      wheel click per unit); at ``x, y`` if given
``hscroll`` / ``dragTo`` / ``drag``   ``invalid`` (no horizontal scroll, no drag)
``press('a')`` / ``press(['a','b'])``  taps, one after another (pyautogui presses a list in
                                      sequence, it is not a chord); ``presses=N`` repeats
``hotkey('ctrl','c')`` / ``keys=[…]``  chord
``keyDown`` / ``keyUp``               ``hold`` for ``keydown_seconds`` / ``wait``
``write`` / ``typewrite``             one key tap per character
``computer.wait()``                   wait
``computer.terminate(…)``             wait (a game has no task to finish)
====================================  ======================================================

Coordinates: OpenCUA-7B is Qwen2.5-VL-based and answers in absolute pixels of the
``smart_resize``-d image (factor 28, ``min_pixels`` 3,136, ``max_pixels`` 12,845,056: the
source's ``smart_resize_kwargs``), so ``x_screen = floor(x / w' * screen_w)``. The source reads a
pair with both values <= 1 as relative; here that needs a decimal point too (``x=0.5``), so that
a click on pixel (1, 1) stays a pixel.
"""

from __future__ import annotations

import re
from typing import Any

from playsuite.actions.canonical import Action, ActionError, Click, Key, Move, Scroll, Wait
from playsuite.actions.keys import KeyNameError, normalize_key
from playsuite.actions.parsers.calls import Call, parse_call, strip_comment
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
    last_match,
    merge_clicks,
    no_action,
    number,
    type_text,
)
from playsuite.actions.parsers.coords import CoordinateError, Frame

DEFAULTS: dict[str, Any] = {
    "coordinates": "smart_resize",
    "factor": 28,
    "min_pixels": 4 * 28 * 28,
    "max_pixels": 16384 * 28 * 28,
}

_CODE_LINE = re.compile(r"^\s*(?:pyautogui|computer)\.", re.IGNORECASE)
_INLINE = re.compile(r"(?:pyautogui|computer)\.\w+\s*\(", re.IGNORECASE)
_CODE_SECTION = re.compile(r"^[ \t#]*code[ \t]*:", re.IGNORECASE | re.MULTILINE)
_FRACTION = re.compile(r"^\s*0?\.\d+\s*$|^\s*[01]\.0*\s*$")
_CLICKS = {
    "click": ("left", 1),
    "leftclick": ("left", 1),
    "rightclick": ("right", 1),
    "middleclick": ("middle", 1),
    "doubleclick": ("left", 2),
    "tripleclick": ("left", 3),
    "triple_click": ("left", 3),
}
MAX_PRESSES = 10


def _lines(text: str) -> list[str]:
    section = last_match(_CODE_SECTION, text)
    body = text[section.end() :] if section is not None else text
    lines = [line.strip() for line in body.split("\n") if _CODE_LINE.match(line)]
    if not lines and section is not None:
        lines = [line.strip() for line in text.split("\n") if _CODE_LINE.match(line)]
    if not lines:
        for line in text.split("\n"):
            m = _INLINE.search(line)
            if m is not None:
                lines.append(line[m.start() :].strip().rstrip("`"))
    return lines


def _is_fraction(value: Any) -> bool:
    if isinstance(value, float):
        return 0 <= value <= 1
    return isinstance(value, str) and bool(_FRACTION.match(value))


def _point(call: Call, ctx: ParseContext, frame: Frame) -> tuple[int, int] | None:
    xv = call.get("x", position=0)
    yv = call.get("y", position=1)
    if xv is None and yv is None:
        return None
    if isinstance(xv, list | tuple) and len(xv) == 2 and yv is None:
        xv, yv = xv
    x, y = number(xv), number(yv)
    if x is None or y is None:
        raise CoordinateError(f"cannot read a point from x={xv!r}, y={yv!r}")
    if _is_fraction(xv) and _is_fraction(yv) and not (x > 1 or y > 1):
        sw, sh = ctx.screen
        return min(int(x * sw), sw - 1), min(int(y * sh), sh - 1)
    return frame.point(x, y)


def _key_list(call: Call) -> list[str]:
    value = call.get("keys", "key")
    if value is None:
        value = call.args[0] if len(call.args) == 1 else list(call.args)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return []


def _call_actions(call: Call, ctx: ParseContext, frame: Frame) -> list[Action]:
    name = call.short.lower()
    raw = call.raw
    if call.name.lower().startswith("computer."):
        if name == "wait":
            return [Wait()]
        if name == "terminate":
            return [finish()]
        if name != "triple_click":
            return [invalid(raw, f"unknown OpenCUA function {call.name!r}")]
    if name in _CLICKS:
        button, count = _CLICKS[name]
        if name == "click":
            button = str(call.get("button") or "left")
            clicks = number(call.get("clicks"))
            count = int(clicks) if clicks is not None else 1
        pt = _point(call, ctx, frame)
        if pt is None:
            return [invalid(raw, f"{call.short} without x, y: the pointer position is unknown")]
        return [Click(pt[0], pt[1], button, count)]
    if name == "moveto":
        pt = _point(call, ctx, frame)
        return [Move(x=pt[0], y=pt[1])] if pt else [invalid(raw, "moveTo without x, y")]
    if name == "scroll":
        amount = number(call.get("clicks", "amount", position=0))
        if amount is None or amount == 0:
            return [invalid(raw, "scroll needs a non-zero amount")]
        direction = "up" if amount > 0 else "down"
        rest = Call(call.name, call.args[1:], call.kwargs, raw)
        pt = _point(rest, ctx, frame)
        if pt is None:
            return [Scroll(direction, round(abs(amount)))]  # type: ignore[arg-type]
        return [Scroll(direction, round(abs(amount)), pt[0], pt[1])]  # type: ignore[arg-type]
    if name == "hscroll":
        return [invalid(raw, HSCROLL_REASON)]
    if name in ("dragto", "drag", "dragrel", "mousedown", "mouseup"):
        return [invalid(raw, DRAG_REASON)]
    if name == "hotkey":
        keys = _key_list(call)
        return [keys_action(keys, raw)] if keys else [invalid(raw, "hotkey without keys")]
    if name == "press":
        keys = _key_list(call)
        if not keys:
            return [invalid(raw, "press without keys")]
        presses = number(call.get("presses"))
        repeat = max(1, min(int(presses), MAX_PRESSES)) if presses is not None else 1
        try:
            taps: list[Action] = [Key((normalize_key(k),)) for k in keys]
        except KeyNameError as exc:
            return [invalid(raw, str(exc))]
        return taps * repeat
    if name == "keydown":
        return [keydown_action(_key_list(call)[:1], raw, ctx)]
    if name == "keyup":
        return [Wait()]
    if name in ("write", "typewrite"):
        return type_text(call.get("message", "text", position=0), ctx)
    return [invalid(raw, f"unknown pyautogui call {call.short!r}")]


def parse(text: str, ctx: ParseContext) -> list[Action]:
    if len(text) > MAX_RESPONSE_CHARS:
        return [invalid(text, f"answer longer than {MAX_RESPONSE_CHARS} characters")]
    cleaned, cut_off = clean(text)
    lines = _lines(cleaned)
    if not lines:
        return no_action(text, "no pyautogui or computer.* call", cut_off)
    frame = ctx.frame
    actions: list[Action] = []
    for line in lines:
        call = parse_call(strip_comment(line))
        if call is None:
            actions.append(invalid(line, "not a call"))
            continue
        try:
            actions.extend(_call_actions(call, ctx, frame))
        except (CoordinateError, ActionError, ValueError) as exc:
            actions.append(invalid(call.raw, str(exc)))
    return merge_clicks(actions)
