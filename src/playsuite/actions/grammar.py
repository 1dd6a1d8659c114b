"""The standard action grammar of the generalist prompt: reading it and writing it.

A structured answer has labelled fields; the action is the text after the last ``Action:``::

    Observation: a title screen with a blinking "PRESS START".
    Strategy: get into the game first, then explore to the right.     (only in the strategy variant)
    Reasoning: start is usually enter or space.
    Action: space

The action line is a space-separated sequence of tokens, executed in order:

==========================  =================================================================
``space``, ``a``, ``f5``    tap one key (any canonical name or alias, any case)
``shift+a``                 chord: press all, release all
``hold:left:0.8``           hold keys for seconds (``hold:right+space:0.5``); capped at 2 s
``wait``                    do nothing this step (``noop`` too; ``wait:2`` is read as ``wait``)
``click:x,y``               left click; ``CLICK: x, y`` and ``click(x, y)`` are the same
``rightclick:x,y``          right click (``middleclick:x,y`` for the middle button)
``click:x,y click:x,y``     repeated clicks at one point fold into one multi-click (a double
                            click); ``doubleclick:x,y`` / ``tripleclick:x,y`` are shorthands
``scroll:up``               one wheel notch; ``scroll:down:5`` five; ``scroll:down:5:x,y`` at x,y
``move:x,y``                move the pointer to x,y
``move:+dx,-dy``            relative move (a sign on either number makes it relative);
                            ``move:+40,0:0.5`` spreads it over 0.5 s (a slow pan, mouse-look)
==========================  =================================================================

Coordinates are in the frame the parser is given (the standard parser: pixels of the image the
model saw; the qwen3 parser: the 0-1000 grid), converted to screen pixels by that frame.

What real models emit is tolerated, without guessing: a ``<think>`` block, markdown
(``**Action:**``, bullets, backticks, code fences), quotes around tokens, any case, spaces around
``:`` ``,`` ``+``,
``;``/``|``/``then``/``and`` between tokens, and prose after the action when it is set off (on a
later line, or after `` (``, `` - ``, `` to ``, ``. ``, ``#``, ``because``…). Lines after the
action line are read as more actions only while each one is entirely grammar. A line that mixes
actions with words the grammar does not know is **one invalid action** listing every unknown
token: nothing on it runs, since executing half of an ambiguous line would be a guess. An answer
without an ``Action:`` field is accepted only if all of it is grammar (a bare ``space``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from playsuite.actions.canonical import (
    Action,
    ActionError,
    Click,
    Hold,
    Invalid,
    Key,
    Move,
    Scroll,
    Wait,
)
from playsuite.actions.keys import KeyNameError, normalize_key
from playsuite.actions.parsers.common import (
    HSCROLL_REASON,
    MAX_RESPONSE_CHARS,
    clean,
    invalid,
    last_match,
    merge_clicks,
    no_action,
)
from playsuite.actions.parsers.coords import CoordinateError, Frame

#: Field labels of the structured answer, normalised (``Thoughts`` -> ``thought``).
FIELD_NAMES = ("observation", "reasoning", "strategy", "thought", "action")

_LABEL = re.compile(
    r"^[ \t#>*_\-]*(observation|reasoning|strategy|thoughts?|actions?)[ \t]*(?:\*+[ \t]*)?:[ \t*]*",
    re.IGNORECASE | re.MULTILINE,
)
_INLINE_ACTION = re.compile(r"\bactions?[ \t]*(?:\*+[ \t]*)?:[ \t*]*", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*(?:[-*>]|\d+[.)])\s+")
_CALL = re.compile(
    r"\b(click|leftclick|left_click|rightclick|right_click|middleclick|middle_click|"
    r"doubleclick|double_click|tripleclick|triple_click|move|moveto|move_to|mousemove|"
    r"scroll|hold)\s*\(([^()]*)\)",
    re.IGNORECASE,
)
#: Where set-off prose begins on an action line.
_PROSE = re.compile(
    r"\s\(|\s[-\u2013\u2014]\s|\s#|//|\.\s|\s(?:to|because|so|which|in order|since|as)\s",
    re.IGNORECASE,
)
_COLON_BRACKET = re.compile(r":[ \t]+(?=[(\[])")  # "click: (1, 2)" is not prose
_SEPARATORS = re.compile(r"[;|]|\s(?:then|and)\s", re.IGNORECASE)
_TIGHTEN = re.compile(r" ?([:,+]) ?")  # after whitespace runs are collapsed to one space
_NUMBER = re.compile(r"^[+-]?\d+(?:\.\d+)?$")
_SECONDS = re.compile(r"^(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)?$")

_CLICK_VERBS = {
    "click": ("left", 1),
    "leftclick": ("left", 1),
    "left_click": ("left", 1),
    "lclick": ("left", 1),
    "rightclick": ("right", 1),
    "right_click": ("right", 1),
    "rclick": ("right", 1),
    "middleclick": ("middle", 1),
    "middle_click": ("middle", 1),
    "doubleclick": ("left", 2),
    "double_click": ("left", 2),
    "dblclick": ("left", 2),
    "tripleclick": ("left", 3),
    "triple_click": ("left", 3),
}
_MOVE_VERBS = {"move", "moveto", "move_to", "mousemove", "mouse_move"}
_KEY_VERBS = {"press", "key", "tap"}
_WAIT_WORDS = {"wait", "noop", "no-op", "no_op", "idle"}


class GrammarError(ValueError):
    """One token that is not in the grammar; the message is the reason recorded."""


# --- reading --------------------------------------------------------------------------------


def response_fields(text: str) -> dict[str, str]:
    """The labelled fields of a structured answer (last occurrence of each label wins).

    Useful beyond parsing: the history of the strategy variant keeps the ``strategy`` field.
    """
    text, _ = clean(text)
    matches = list(_LABEL.finditer(text))
    fields: dict[str, str] = {}
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        name = m.group(1).lower()
        name = name[:-1] if name.endswith("s") else name
        fields[name] = text[m.end() : end].strip()
    if "action" not in fields:
        inline = last_match(_INLINE_ACTION, text)
        if inline is not None:
            fields["action"] = text[inline.end() :].strip()
    return fields


def _clean_line(line: str) -> str:
    line = _BULLET.sub("", line.replace("`", "").replace("*", ""))
    return line.strip().strip("\"'").strip()


def _tokens(line: str) -> list[str]:
    line = _COLON_BRACKET.sub(":", line)
    line = _CALL.sub(lambda m: f"{m.group(1)}:{m.group(2)}", line)
    prose = _PROSE.search(line)
    if prose is not None:
        line = line[: prose.start()]
    line = _SEPARATORS.sub(" ", line)
    line = _TIGHTEN.sub(r"\1", " ".join(line.lower().split()))
    out: list[str] = []
    for raw in line.split():
        token = raw.strip("\"'")
        if len(token) > 2 and token[0] == "[" and token[-1] == "]" and ":" not in token:
            token = token[1:-1]  # "[space]"
        if len(token) > 1:
            token = token.rstrip(".!?") or token
        if "," in token and ":" not in token:
            out.extend(t for t in token.split(",") if t)
        elif token:
            out.append(token)
    return out


def _num(text: str, what: str) -> float:
    text = text.strip().strip("()[]")
    if not _NUMBER.match(text):
        raise GrammarError(f"{what} {text!r} is not a number")
    return float(text)


def _pair(text: str, what: str) -> tuple[str, str]:
    parts = text.strip().strip("()[]").split(",")
    if len(parts) != 2:
        raise GrammarError(f"{what} needs two numbers 'x,y', got {text!r}")
    return parts[0], parts[1]


def _point(text: str, frame: Frame, what: str) -> tuple[int, int]:
    xs, ys = _pair(text, what)
    try:
        return frame.point(_num(xs, "x"), _num(ys, "y"))
    except CoordinateError as exc:
        raise GrammarError(f"{what}: {exc}") from None


def _keys(text: str) -> tuple[str, ...]:
    if not text:
        raise GrammarError("empty key name")
    try:
        return tuple(normalize_key(k) for k in text.split("+"))
    except KeyNameError as exc:
        raise GrammarError(str(exc)) from None


def _seconds(text: str) -> float:
    m = _SECONDS.match(text.strip())
    if not m:
        raise GrammarError(f"duration {text!r} is not a number of seconds")
    value = float(m.group(1))
    if value <= 0:
        raise GrammarError(f"duration must be positive, got {text!r}")
    return value


def parse_token(token: str, frame: Frame) -> Action:
    """One grammar token (already lower-cased, no inner spaces) as a canonical action."""
    verb, colon, rest = token.partition(":")
    try:
        if not colon:
            if token in _WAIT_WORDS:
                return Wait()
            if token in _CLICK_VERBS or token in _MOVE_VERBS or token in ("scroll", "hold"):
                raise GrammarError(f"'{token}' needs arguments (see the action grammar)")
            return Key(_keys(token))
        if verb in _CLICK_VERBS:
            button, count = _CLICK_VERBS[verb]
            x, y = _point(rest, frame, verb)
            return Click(x, y, button, count)
        if verb == "hold":
            keys, _, seconds = rest.rpartition(":")
            if not keys:
                raise GrammarError("hold needs 'hold:KEYS:SECONDS'")
            return Hold(_keys(keys), _seconds(seconds))
        if verb == "scroll":
            return _scroll(rest, frame)
        if verb in _MOVE_VERBS:
            return _move(rest, frame)
        if verb in _KEY_VERBS:
            return Key(_keys(rest))
        if verb in _WAIT_WORDS:
            _seconds(rest)
            return Wait()
    except ActionError as exc:
        raise GrammarError(str(exc)) from None
    raise GrammarError(f"unknown action '{verb}'")


def _scroll(rest: str, frame: Frame) -> Scroll:
    parts = rest.split(":")
    direction = parts[0]
    if direction in ("left", "right"):
        raise GrammarError(HSCROLL_REASON)
    if direction not in ("up", "down"):
        raise GrammarError(f"scroll direction must be up or down, got {direction!r}")
    notches = 1
    if len(parts) >= 2:
        value = _num(parts[1], "scroll notches")
        if not value.is_integer() or value < 1:
            raise GrammarError(f"scroll notches must be a whole number >= 1, got {parts[1]!r}")
        notches = int(value)
    if len(parts) == 3:
        x, y = _point(parts[2], frame, "scroll")
        return Scroll(direction, notches, x, y)  # type: ignore[arg-type]
    if len(parts) > 3:
        raise GrammarError(f"scroll takes at most 'scroll:DIR:N:x,y', got {rest!r}")
    return Scroll(direction, notches)  # type: ignore[arg-type]


def _move(rest: str, frame: Frame) -> Move:
    coords, _, seconds = rest.partition(":")
    xs, ys = _pair(coords, "move")
    relative = xs.strip().startswith(("+", "-")) or ys.strip().startswith(("+", "-"))
    if not relative:
        if seconds:
            raise GrammarError("only a relative move (move:+dx,-dy) takes seconds")
        x, y = _point(coords, frame, "move")
        return Move(x=x, y=y)
    try:
        dx, dy = frame.delta(_num(xs, "dx"), _num(ys, "dy"))
    except CoordinateError as exc:
        raise GrammarError(f"move: {exc}") from None
    return Move(dx=dx, dy=dy, seconds=_seconds(seconds) if seconds else None)


def parse_line(line: str, frame: Frame) -> list[Action]:
    """Every token of one action line; raises :class:`GrammarError` naming each unknown token."""
    tokens = _tokens(_clean_line(line))
    if not tokens:
        raise GrammarError("no action on the line")
    actions: list[Action] = []
    errors: list[str] = []
    for token in tokens:
        try:
            actions.append(parse_token(token, frame))
        except GrammarError as exc:
            errors.append(f"{token!r}: {exc}")
    if errors:
        raise GrammarError("; ".join(errors))
    return actions


def _content_lines(block: str) -> list[str]:
    return [line for line in block.split("\n") if line.strip() and not _FENCE.match(line)]


def parse_action_block(block: str, frame: Frame) -> list[Action]:
    """The actions of an ``Action:`` field: its first line, then following lines while valid."""
    lines = _content_lines(block)
    if not lines:
        return [invalid(block, "the Action field is empty")]
    try:
        actions = parse_line(lines[0], frame)
    except GrammarError as exc:
        return [invalid(lines[0], f"not in the action grammar: {exc}")]
    for line in lines[1:]:
        try:
            actions.extend(parse_line(line, frame))
        except GrammarError:
            break  # trailing prose
    return merge_clicks(actions)


def parse_standard(text: str, frame: Frame) -> list[Action]:
    """A whole answer in the standard grammar as canonical actions; never raises."""
    if len(text) > MAX_RESPONSE_CHARS:
        return [invalid(text, f"answer longer than {MAX_RESPONSE_CHARS} characters")]
    cleaned, cut_off = clean(text)
    fields = response_fields(cleaned)
    if "action" in fields:
        return parse_action_block(fields["action"], frame)
    lines = _content_lines(cleaned)
    if lines:
        try:
            actions = [a for line in lines for a in parse_line(line, frame)]
        except GrammarError:
            pass
        else:
            return merge_clicks(actions)
    return no_action(text, "no 'Action:' field, and the answer is not an action", cut_off)


# --- writing --------------------------------------------------------------------------------


def _fmt_seconds(seconds: float) -> str:
    return repr(float(seconds))


def format_action(action: Action) -> str:
    """The grammar token(s) for one canonical action (coordinates written as they are)."""
    if isinstance(action, Key):
        return "+".join(action.keys)
    if isinstance(action, Hold):
        return f"hold:{'+'.join(action.keys)}:{_fmt_seconds(action.seconds)}"
    if isinstance(action, Click):
        verb = {"left": "click", "right": "rightclick", "middle": "middleclick"}[action.button]
        return " ".join([f"{verb}:{action.x},{action.y}"] * action.count)
    if isinstance(action, Move):
        if not action.relative:
            return f"move:{action.x},{action.y}"
        text = f"move:{action.dx:+d},{action.dy:+d}"
        return text + (f":{_fmt_seconds(action.seconds)}" if action.seconds is not None else "")
    if isinstance(action, Scroll):
        text = f"scroll:{action.direction}:{action.notches}"
        return text + (f":{action.x},{action.y}" if action.x is not None else "")
    if isinstance(action, Wait):
        return "wait"
    if isinstance(action, Invalid):
        raise ValueError("an invalid action has no standard-grammar form")
    raise TypeError(f"not a canonical action: {action!r}")


def format_standard(actions: Iterable[Action]) -> str:
    """The ``Action:`` line that the standard parser reads back as the same actions.

    Used by baseline agents, so that their answers go through the same parser as a model's.
    Coordinates are written as they are: read back with an image the size of the screen.
    """
    tokens = [format_action(a) for a in actions]
    if not tokens:
        raise ValueError("no actions to format")
    return "Action: " + " ".join(tokens)
