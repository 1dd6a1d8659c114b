"""ShowUI-2B action dicts: ``{'action': 'CLICK', 'value': None, 'position': [0.49, 0.42]}``.

Format (showlab/ShowUI ``QUICK_START.md`` navigation prompt, ``data/template/*.py``; the
showlab/computer_use_ootb ``ShowUIExecutor`` that runs them): one or more Python dict literals,
comma- or newline-separated (read with :func:`ast.literal_eval`, JSON also accepted), with keys
``action``, ``value`` (text or direction, ``None`` when not applicable) and ``position``
(``[x, y]``, or ``[[x1, y1], [x2, y2]]`` for two-point actions). Action names are upper-cased
first, as the executor does. Mapping:

=============================  ==============================================================
``CLICK`` / ``TAP``            left click at ``position``
``SELECT``                     left click at ``position`` (choosing an element)
``HOVER``                      pointer move
``INPUT`` / ``TYPE``           one key tap per character of ``value``; the position is not
                               clicked first (the executor types only)
``ENTER`` / ``ESC``            key tap enter / escape
``PRESS``                      with a position: left click (the executor's ``left_press``);
                               with a key name as value: that key
``SCROLL``                     ``scroll_notches`` wheel notches up/down (the executor pages with
                               PageUp/PageDown instead; the wheel keeps scrolling uniform across
                               parsers); left/right -> ``invalid``
``ANSWER``, ``STATUS …``       wait (an answer has no effect on a game)
``SWIPE``, ``SELECT_TEXT``     ``invalid`` (two-point drags); ``COPY`` ``invalid`` (clipboard)
=============================  ==============================================================

Coordinates: "relative coordinates on the screenshot … scaled to a range of 0-1" (the prompt),
so ``x_screen = floor(x * screen_w)``; a value above 1 is ``invalid``.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from playsuite.actions.canonical import Action, ActionError, Click, Move, Scroll
from playsuite.actions.keys import KeyNameError, normalize_key
from playsuite.actions.parsers.common import (
    DRAG_REASON,
    HSCROLL_REASON,
    MAX_RESPONSE_CHARS,
    MOBILE_REASON,
    ParseContext,
    clean,
    finish,
    invalid,
    keys_action,
    merge_clicks,
    no_action,
    number,
    type_text,
)
from playsuite.actions.parsers.coords import CoordinateError, Frame

DEFAULTS: dict[str, Any] = {"coordinates": "fraction", "scroll_notches": 5}

MAX_DICT_CHARS = 2000


def _dict_spans(text: str) -> list[str]:
    """Top-level ``{…}`` substrings (quote-aware), in order."""
    spans: list[str] = []
    depth = 0
    quote = ""
    start = -1
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"" and depth > 0:
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
        i += 1
    return spans


def _literal(span: str) -> Any:
    if len(span) > MAX_DICT_CHARS:
        return None
    try:
        return ast.literal_eval(span)
    except Exception:
        pass
    try:
        return json.loads(span)
    except Exception:
        return None


def _point(position: Any, frame: Frame) -> tuple[int, int] | None:
    if position is None:
        return None
    if isinstance(position, list | tuple) and len(position) == 2:
        x, y = number(position[0]), number(position[1])
        if x is not None and y is not None:
            return frame.point(x, y)
    raise CoordinateError(f"position must be [x, y] in 0-1, got {position!r}")


def _dict_actions(item: dict[str, Any], raw: str, ctx: ParseContext, frame: Frame) -> list[Action]:
    action = str(item.get("action") or "").strip().upper().replace(" ", "_")
    value = item.get("value")
    position = item.get("position")
    if action in ("CLICK", "TAP", "SELECT", "HOVER"):
        pt = _point(position, frame)
        if pt is None:
            return [invalid(raw, f"{action} without a position")]
        return [Move(x=pt[0], y=pt[1])] if action == "HOVER" else [Click(pt[0], pt[1])]
    if action in ("INPUT", "TYPE"):
        return type_text(value if isinstance(value, str) else "", ctx)
    if action in ("ENTER", "PRESS_ENTER"):
        return [keys_action(["enter"], raw)]
    if action in ("ESC", "ESCAPE"):
        return [keys_action(["escape"], raw)]
    if action == "PRESS":
        if position is not None:
            pt = _point(position, frame)
            return [Click(pt[0], pt[1])] if pt else [invalid(raw, "PRESS without a position")]
        if isinstance(value, str):
            try:
                return [keys_action([normalize_key(value)], raw)]
            except KeyNameError as exc:
                return [invalid(raw, str(exc))]
        return [invalid(raw, "PRESS without a position or key")]
    if action.startswith("SCROLL"):
        direction = action[len("SCROLL") :].strip("_").lower() or str(value or "").strip().lower()
        if direction in ("left", "right"):
            return [invalid(raw, HSCROLL_REASON)]
        if direction not in ("up", "down"):
            return [invalid(raw, f"scroll direction must be up or down, got {direction!r}")]
        return [Scroll(direction, ctx.int_option("scroll_notches"))]  # type: ignore[arg-type]
    if action in ("ANSWER",) or action.startswith("STATUS"):
        return [finish()]
    if action in ("SWIPE", "SELECT_TEXT", "DRAG"):
        return [invalid(raw, DRAG_REASON)]
    if action == "COPY":
        return [invalid(raw, "COPY has no canonical action (no clipboard); not executed")]
    if action in ("PRESS_BACK", "PRESS_HOME", "LONG_PRESS", "OPEN"):
        return [invalid(raw, MOBILE_REASON)]
    return [invalid(raw, f"unknown ShowUI action {item.get('action')!r}")]


def parse(text: str, ctx: ParseContext) -> list[Action]:
    if len(text) > MAX_RESPONSE_CHARS:
        return [invalid(text, f"answer longer than {MAX_RESPONSE_CHARS} characters")]
    cleaned, cut_off = clean(text)
    spans = _dict_spans(cleaned)
    if not spans:
        return no_action(text, "no ShowUI action dict", cut_off)
    frame = ctx.frame
    actions: list[Action] = []
    for span in spans:
        item = _literal(span)
        if not isinstance(item, dict) or "action" not in item:
            actions.append(invalid(span, "not a ShowUI action dict with an 'action' key"))
            continue
        try:
            actions.extend(_dict_actions(item, span, ctx, frame))
        except (CoordinateError, ActionError, ValueError) as exc:
            actions.append(invalid(span, str(exc)))
    return merge_clicks(actions)
