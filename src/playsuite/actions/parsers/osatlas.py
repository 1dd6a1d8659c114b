"""OS-Atlas-Pro action lines: ``thoughts:\\n…\\nactions:\\nCLICK <point>[[x,y]]</point>``.

Format (OS-Copilot/OS-Atlas ``eval/data/*.jsonl`` prompts and answers; the evaluation scripts
split the text after ``actions:`` into one action per line): the system prompt lists basic
actions ``CLICK <point>[[x, y]]</point>``, ``TYPE [text]``, ``SCROLL [UP|DOWN|LEFT|RIGHT]`` and
custom ones ``DOUBLECLICK``, ``RIGHTCLICK``, ``MOVETO`` (all with a point), ``PRESS_<KEY>``
(``PRESS_SPACE``, ``PRESS_ESC``, ``PRESS_PGDN``…), ``HOTKEY [CTRL_A]``, ``ENTER``, ``COMPLETE``,
and on phones ``LONG_PRESS``, ``OPEN_APP [app]``, ``PRESS_BACK``, ``PRESS_HOME``,
``PRESS_RECENT``, ``WAIT``. Mapping:

==============================  ============================================================
``CLICK`` / ``TAP``             left click (``DOUBLECLICK``: ``count: 2``; ``RIGHTCLICK``)
``MOVETO``                      pointer move
``TYPE [text]``                 one key tap per character
``SCROLL [UP]``                 ``scroll_notches`` notches (the format has no amount);
                                LEFT/RIGHT -> ``invalid``
``PRESS_<KEY>``, ``ENTER``      key tap (``PRESS_PGDN`` -> pagedown)
``HOTKEY [CTRL_A]``             chord; parts joined by ``_``, ``+`` or spaces
``COMPLETE``, ``WAIT``          wait
phone actions                   ``invalid``
==============================  ============================================================

Coordinates: relative on a 0-1000 grid ("The model outputs are normalized to relative
coordinates within a 0-1000 range (either a center point or a bounding box …)", OS-Atlas README
and the OS-Atlas-Pro-7B model card), so ``x_screen = floor(x / 1000 * screen_w)``; a four-number
box means its centre. The base model OS-Atlas-Pro-7B starts from is Qwen2-VL, which also grounds
on 0-1000 (``<|box_start|>(x1,y1),(x2,y2)<|box_end|>`` is read the same way).
"""

from __future__ import annotations

import re
from typing import Any

from playsuite.actions.canonical import Action, ActionError, Click, Move, Scroll, Wait
from playsuite.actions.keys import KeyNameError, normalize_key
from playsuite.actions.parsers.common import (
    HSCROLL_REASON,
    MAX_RESPONSE_CHARS,
    MOBILE_REASON,
    ParseContext,
    clean,
    finish,
    invalid,
    keys_action,
    last_match,
    merge_clicks,
    no_action,
    numbers_in,
    point_from_numbers,
    type_text,
)
from playsuite.actions.parsers.coords import CoordinateError, Frame

DEFAULTS: dict[str, Any] = {"coordinates": "grid", "grid": 1000, "scroll_notches": 5}

_ACTIONS_LABEL = re.compile(r"^[ \t*]*actions?[ \t]*(?:\*+[ \t]*)?:", re.IGNORECASE | re.MULTILINE)
_LINE = re.compile(r"^\s*([A-Za-z]+(?:_[A-Za-z0-9]+)*)\b\s*(.*)$", re.DOTALL)
_BRACKET = re.compile(r"^\[(.*)\]$", re.DOTALL)
_CLICKS = {
    "CLICK": ("left", 1),
    "TAP": ("left", 1),
    "DOUBLECLICK": ("left", 2),
    "DOUBLE_CLICK": ("left", 2),
    "RIGHTCLICK": ("right", 1),
    "RIGHT_CLICK": ("right", 1),
}
_MOBILE = {"LONG_PRESS", "OPEN_APP", "PRESS_BACK", "PRESS_HOME", "PRESS_RECENT", "SWIPE"}
_DONE = {"COMPLETE", "WAIT", "IMPOSSIBLE", "STATUS_TASK_COMPLETE", "STATUS_TASK_IMPOSSIBLE"}
_KNOWN = set(_CLICKS) | _MOBILE | _DONE | {"MOVETO", "MOVE_TO", "HOVER", "TYPE", "SCROLL", "HOTKEY"}


def _action_lines(text: str) -> list[str] | None:
    label = last_match(_ACTIONS_LABEL, text)
    body = text[label.end() :] if label is not None else text
    lines = [line.strip().strip("`") for line in body.split("\n")]
    lines = [line for line in lines if line]
    if label is None:  # no label: only lines that start with an action word, in capitals
        lines = [line for line in lines if _starts_with_action(line, capitals=True)]
    return lines or None


def _starts_with_action(line: str, capitals: bool = False) -> bool:
    m = _LINE.match(line)
    if m is None or (capitals and not m.group(1).isupper()):
        return False
    word = m.group(1).upper()
    return word in _KNOWN or word == "ENTER" or word.startswith("PRESS_")


def _argument(rest: str) -> str:
    rest = rest.strip()
    m = _BRACKET.match(rest)
    return m.group(1) if m else rest


def split_hotkey(text: str) -> list[str]:
    """``CTRL_A`` -> ``[ctrl, a]``; ``CTRL_PAGE_DOWN`` -> ``[ctrl, page_down]`` (longest names)."""
    parts = [p for p in re.split(r"[_+\s]+", text.strip()) if p]
    keys: list[str] = []
    i = 0
    while i < len(parts):
        for j in range(min(len(parts), i + 3), i, -1):  # key names have at most three parts
            try:
                normalize_key("_".join(parts[i:j]))
            except KeyNameError:
                continue
            keys.append("_".join(parts[i:j]))
            i = j
            break
        else:
            keys.append(parts[i])  # unknown: reported by the caller
            i += 1
    return keys


def _point(rest: str, frame: Frame) -> tuple[int, int]:
    pt = point_from_numbers(numbers_in(rest))
    if pt is None:
        raise CoordinateError(f"cannot read a point from {rest.strip()!r}")
    return frame.point(*pt)


def _line_actions(line: str, ctx: ParseContext, frame: Frame) -> list[Action]:
    m = _LINE.match(line)
    if m is None:
        return [invalid(line, "not an OS-Atlas action line")]
    word, rest = m.group(1).upper(), m.group(2)
    if word in _CLICKS:
        button, count = _CLICKS[word]
        x, y = _point(rest, frame)
        return [Click(x, y, button, count)]
    if word in ("MOVETO", "MOVE_TO", "HOVER"):
        x, y = _point(rest, frame)
        return [Move(x=x, y=y)]
    if word == "TYPE":
        return type_text(_argument(rest), ctx)
    if word == "SCROLL":
        direction = _argument(rest).strip().lower()
        if direction in ("left", "right"):
            return [invalid(line, HSCROLL_REASON)]
        if direction not in ("up", "down"):
            return [invalid(line, f"scroll direction must be UP or DOWN, got {direction!r}")]
        return [Scroll(direction, ctx.int_option("scroll_notches"))]  # type: ignore[arg-type]
    if word == "HOTKEY":
        keys = split_hotkey(_argument(rest))
        return [keys_action(keys, line)] if keys else [invalid(line, "HOTKEY without keys")]
    if word in _MOBILE:
        return [invalid(line, MOBILE_REASON)]
    if word in _DONE:
        return [finish()] if word != "WAIT" else [Wait()]
    if word == "ENTER":
        return [keys_action(["enter"], line)]
    if word.startswith("PRESS_"):
        return [keys_action(split_hotkey(word[len("PRESS_") :]), line)]
    return [invalid(line, f"unknown OS-Atlas action {m.group(1)!r}")]


def parse(text: str, ctx: ParseContext) -> list[Action]:
    if len(text) > MAX_RESPONSE_CHARS:
        return [invalid(text, f"answer longer than {MAX_RESPONSE_CHARS} characters")]
    cleaned, cut_off = clean(text)
    lines = _action_lines(cleaned)
    if lines is None:
        return no_action(text, "no 'actions:' section with an OS-Atlas action", cut_off)
    frame = ctx.frame
    actions: list[Action] = []
    for line in lines:
        if actions and not _starts_with_action(line):
            break  # prose after the actions
        try:
            actions.extend(_line_actions(line, ctx, frame))
        except (CoordinateError, ActionError, ValueError) as exc:
            actions.append(invalid(line, str(exc)))
    return merge_clicks(actions)
