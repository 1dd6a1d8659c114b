"""UI-TARS-1.5 action calls: ``Thought: …`` then ``Action: click(start_box='(x,y)')``.

Format (bytedance/UI-TARS ``codes/ui_tars/prompt.py`` COMPUTER_USE template and
``codes/ui_tars/action_parser.py``): the answer is ``Thought: …\\nAction: <call>``; several calls
are separated by a blank line. A point is written ``start_box='(x,y)'``, with box tokens
``'<|box_start|>(x,y)<|box_end|>'``, or ``point='<point>x y</point>'`` (``start_point`` /
``end_point`` in drags); a four-number box ``(x1,y1,x2,y2)`` means its centre. Calls:

===================================  =========================================================
``click`` / ``left_single``          left click
``left_double``                      double click (``count: 2``)
``right_single``                     right click
``hover``                            pointer move
``hotkey(key='ctrl c')``             chord; keys split on spaces, as the prompt asks
``press`` / ``keydown(key=…)``       key down -> ``hold`` for ``keydown_seconds`` (the source
                                     executes both as pyautogui ``keyDown``)
``keyup`` / ``release``              key up -> ``wait`` (the hold already released it)
``type(content='…')``                one key tap per character; ``\\n`` is enter
``scroll(…, direction='down')``      ``scroll_notches`` wheel notches (default 5: the source
                                     executes ``pyautogui.scroll(±5)``), at the point if given;
                                     left/right -> ``invalid`` (no horizontal scroll)
``wait()``                           wait
``finished(…)`` / ``call_user()``    wait (a game has no task to finish)
``drag`` / ``select``                ``invalid``: no press-move-release in the canonical set
mobile calls                         ``long_press``, ``open_app``, ``press_home``, ``press_back``:
                                     ``invalid``
===================================  =========================================================

Coordinates: UI-TARS-1.5 is Qwen2.5-VL-based and answers in absolute pixels of the image *after*
``smart_resize`` (factor 28; the source's bounds are ``min_pixels = 100*28*28``,
``max_pixels = 16384*28*28``), so ``x_screen = floor(x / w' * screen_w)`` with
``(w', h') = smart_resize(image)`` (bytedance/UI-TARS README_coordinates.md). The bounds must be
those of the server's processor: override ``min_pixels``/``max_pixels`` in the preset's
``parser_options`` if vLLM is started with other ones. UI-TARS-1.0 (Qwen2-VL) answered on a
0-1000 grid: ``parser_options: {coordinates: grid}``.
"""

from __future__ import annotations

import re
from typing import Any

from playsuite.actions.canonical import Action, ActionError, Click, Move, Scroll, Wait
from playsuite.actions.parsers.calls import Call, parse_call
from playsuite.actions.parsers.common import (
    DRAG_REASON,
    HSCROLL_REASON,
    MAX_RESPONSE_CHARS,
    MOBILE_REASON,
    ParseContext,
    clean,
    finish,
    invalid,
    keydown_action,
    keys_action,
    last_match,
    merge_clicks,
    no_action,
    numbers_in,
    point_from_numbers,
    type_text,
)
from playsuite.actions.parsers.coords import UITARS_MIN_PIXELS, CoordinateError, Frame

DEFAULTS: dict[str, Any] = {
    "coordinates": "smart_resize",
    "factor": 28,
    "min_pixels": UITARS_MIN_PIXELS,
    "max_pixels": 16384 * 28 * 28,
    "scroll_notches": 5,
}

_ACTION_LABEL = re.compile(r"\baction\s*:", re.IGNORECASE)
_CALL_START = re.compile(r"^\s*[A-Za-z_]\w*\s*\(")
_POINT_ARGS = ("start_box", "point", "start_point", "box", "coordinate", "position")
_CLICKS = {
    "click": ("left", 1),
    "left_single": ("left", 1),
    "left_click": ("left", 1),
    "left_double": ("left", 2),
    "double_click": ("left", 2),
    "left_triple": ("left", 3),
    "right_single": ("right", 1),
    "right_click": ("right", 1),
    "middle_single": ("middle", 1),
}
_MOBILE = {"long_press", "open_app", "press_home", "press_back", "swipe"}


def _action_text(text: str) -> str | None:
    label = last_match(_ACTION_LABEL, text)
    if label is not None:
        return text[label.end() :]
    return text if _CALL_START.match(text) else None


def _chunks(action_text: str) -> list[str]:
    """One string per call: blank lines separate calls; so does a new line starting a call."""
    chunks: list[str] = []
    for block in re.split(r"\n\s*\n", action_text):
        current: list[str] = []
        for line in block.split("\n"):
            if current and _CALL_START.match(line):
                chunks.append("\n".join(current))
                current = []
            current.append(line)
        if any(line.strip() for line in current):
            chunks.append("\n".join(current))
    return chunks


def point(call: Call, frame: Frame) -> tuple[int, int] | None:
    """Screen point of the call's first point argument; None when it has none.

    Raises :class:`CoordinateError` for a point that is not two (or four) numbers in the frame.
    """
    value = call.get(*_POINT_ARGS, position=0)
    if value is None:
        return None
    if isinstance(value, list | tuple):
        values = [float(v) for v in value if isinstance(v, int | float)]
    else:
        values = numbers_in(str(value))
    pt = point_from_numbers(values)
    if pt is None:
        raise CoordinateError(f"cannot read a point from {value!r}")
    return frame.point(*pt)


def _keys(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [k for k in re.split(r"[\s+]+", str(value or "")) if k]


def _call_actions(call: Call, ctx: ParseContext, frame: Frame) -> list[Action]:
    name = call.short.lower()
    raw = call.raw
    if name in _CLICKS:
        button, count = _CLICKS[name]
        pt = point(call, frame)
        if pt is None:
            return [invalid(raw, f"{name} without a point")]
        return [Click(pt[0], pt[1], button, count)]
    if name in ("hover", "mouse_move", "move_to"):
        pt = point(call, frame)
        return [Move(x=pt[0], y=pt[1])] if pt else [invalid(raw, f"{name} without a point")]
    if name == "hotkey":
        keys = _keys(call.get("key", "hotkey", "keys", position=0))
        return [keys_action(keys, raw)] if keys else [invalid(raw, "hotkey without keys")]
    if name in ("press", "keydown", "key_down"):
        keys = _keys(call.get("key", "press", "keys", position=0))
        return [keydown_action(keys, raw, ctx)] if keys else [invalid(raw, f"{name} without a key")]
    if name in ("keyup", "key_up", "release"):
        return [Wait()]
    if name in ("type", "write"):
        return type_text(call.get("content", "text", position=0), ctx)
    if name == "scroll":
        direction = str(call.get("direction", position=1) or "").strip().lower()
        if direction in ("left", "right"):
            return [invalid(raw, HSCROLL_REASON)]
        if direction not in ("up", "down"):
            return [invalid(raw, f"scroll direction must be up or down, got {direction!r}")]
        pt = point(call, frame) if call.get(*_POINT_ARGS) is not None else None
        notches = ctx.int_option("scroll_notches")
        if pt is None:
            return [Scroll(direction, notches)]  # type: ignore[arg-type]
        return [Scroll(direction, notches, pt[0], pt[1])]  # type: ignore[arg-type]
    if name == "wait":
        return [Wait()]
    if name in ("finished", "call_user"):
        return [finish()]
    if name in ("drag", "select", "left_drag"):
        return [invalid(raw, DRAG_REASON)]
    if name in _MOBILE:
        return [invalid(raw, MOBILE_REASON)]
    return [invalid(raw, f"unknown UI-TARS action {call.short!r}")]


def parse(text: str, ctx: ParseContext) -> list[Action]:
    if len(text) > MAX_RESPONSE_CHARS:
        return [invalid(text, f"answer longer than {MAX_RESPONSE_CHARS} characters")]
    cleaned, cut_off = clean(text)
    action_text = _action_text(cleaned)
    if action_text is None or not action_text.strip():
        return no_action(text, "no 'Action:' with a UI-TARS call", cut_off)
    frame = ctx.frame
    actions: list[Action] = []
    for chunk in _chunks(action_text):
        call = parse_call(chunk)
        if call is None:
            if actions:
                break  # prose after the calls
            actions.append(invalid(chunk, "not a UI-TARS action call"))
            continue
        try:
            actions.extend(_call_actions(call, ctx, frame))
        except (CoordinateError, ActionError, ValueError) as exc:
            actions.append(invalid(call.raw, str(exc)))
    return merge_clicks(actions)
