"""What every parser shares: the parse context, response clean-up, and the explicit mappings for
model actions that have no one-to-one canonical action (typing text, holding keys, finishing).

Decisions made once here so that all seven parsers treat the same model intent the same way:

* **typing** ``type("Hi!")`` becomes one key tap per character (``shift+h``, ``i``,
  ``shift+1``) on a US layout; a character with no canonical key (``é``) becomes an ``invalid``
  action naming it, and text past ``max_type_chars`` becomes one ``invalid`` action saying how
  much was cut. Nothing is dropped without a record.
* **key down / key up** (UI-TARS ``press``/``keydown``, ``computer_use`` ``key_down``, pyautogui
  ``keyDown``) has no canonical state that outlives a step, so a key-down becomes a ``hold`` of
  ``keydown_seconds`` (default: the 2 s cap, the closest to "held until released") and a key-up
  becomes ``wait`` (the hold already released it).
* **finishing** (``finished()``, ``terminate``, ``COMPLETE``, ``answer``) becomes ``wait``: a
  game has no task to finish and the episode runs to its time budget.
* **drags**, **horizontal scrolls** and **phone-only actions** (swipe, long press, home/back
  buttons, opening apps) have no canonical equivalent and become ``invalid`` with the reason.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from playsuite.actions.canonical import (
    MAX_CLICK_COUNT,
    MAX_HOLD_SECONDS,
    Action,
    ActionError,
    Click,
    Hold,
    Invalid,
    Key,
    Wait,
)
from playsuite.actions.keys import KeyNameError, chord_for_char, normalize_key
from playsuite.actions.parsers.coords import Frame, make_frame

#: Longest response a parser reads; a model capped at 512 tokens never comes near it.
MAX_RESPONSE_CHARS = 100_000
#: ``raw`` of an invalid action is cut to this many characters (the full text is in the trace).
MAX_RAW_CHARS = 500

#: Options every parser accepts; each parser overrides the ones its family needs.
COMMON_DEFAULTS: dict[str, Any] = {
    "coordinates": "pixels",
    "grid": 1000,
    "factor": 28,
    "min_pixels": 4 * 28 * 28,
    "max_pixels": 16384 * 28 * 28,
    "scroll_notches": 5,
    "keydown_seconds": MAX_HOLD_SECONDS,
    "max_type_chars": 64,
}

DRAG_REASON = "drag has no canonical action (no press-move-release in DESIGN.md §3); not executed"
HSCROLL_REASON = "horizontal scroll has no canonical action (scroll is up|down); not executed"
MOBILE_REASON = "phone-only action with no keyboard/mouse equivalent; not executed"


@dataclass(frozen=True)
class ParseContext:
    """Everything a parser needs besides the text: sizes and the merged options."""

    screen: tuple[int, int]
    image: tuple[int, int]
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def frame(self) -> Frame:
        return make_frame(dict(self.options), self.screen, self.image)

    def int_option(self, name: str) -> int:
        return int(self.options[name])

    def float_option(self, name: str) -> float:
        return float(self.options[name])


def last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text`` (answers often restate a label before the end)."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007 -- the loop keeps the last match
        pass
    return found


def clip(raw: str) -> str:
    """Keep ``raw`` short enough for a trace line."""
    raw = raw.strip()
    return raw if len(raw) <= MAX_RAW_CHARS else raw[: MAX_RAW_CHARS - 3] + "..."


def invalid(raw: str, reason: str) -> Invalid:
    return Invalid(clip(writable_text(raw)), reason)


#: Halves of UTF-16 pairs: a JSON answer can carry them as ``\ud800`` escapes, but no UTF-8 file
#: or request body can hold them.
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    """True when ``text`` is not valid Unicode (a model answer that can be neither written to the
    trace nor sent back in a prompt)."""
    return _SURROGATE.search(text) is not None


def writable_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD, so the trace, the history and the
    next prompt can carry it; everything else is kept as the model wrote it."""
    return _SURROGATE.sub("\ufffd", text)


_THINK_TAGS = ("think", "thinking", "reasoning")
_SPECIAL_TOKEN = re.compile(r"<\|(?:im_end|im_start|endoftext|eot_id|end)\|>|\[EOS\]")


def strip_thinking(text: str) -> tuple[str, bool]:
    """Remove reasoning blocks; return the answer text and whether it was cut off while thinking.

    Everything up to the last ``</think>`` is reasoning (a closed ``<think>…</think>`` block of a
    Qwen3 thinking model, or a lone closer whose opener the chat template consumed). An opener
    left after that starts an unterminated block: the text before it is the answer, and if there
    is none the model was cut off while thinking. Linear in the text (no backtracking regex).
    """
    lower = text.lower()
    end = -1
    for tag in _THINK_TAGS:
        closer = f"</{tag}>"
        at = lower.rfind(closer)
        if at >= 0:
            end = max(end, at + len(closer))
    if end >= 0:
        text, lower = text[end:], lower[end:]
    starts = [at for tag in _THINK_TAGS if (at := lower.find(f"<{tag}>")) >= 0]
    if starts:
        text = text[: min(starts)]
        return text, not text.strip()
    return text, False


def clean(text: str) -> tuple[str, bool]:
    """Response text without reasoning blocks and end-of-turn tokens, newlines normalised."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _SPECIAL_TOKEN.sub("", text)
    return strip_thinking(text)


def no_action(raw: str, what: str, cut_off: bool = False) -> list[Action]:
    """The single ``invalid`` action of an answer (``raw``, as received) with no action in it."""
    if cut_off:
        return [invalid(raw, "the answer ended inside a thinking block: no action was given")]
    if not raw.strip():
        return [invalid(raw, "empty answer: no action was given")]
    return [invalid(raw, f"no action found: {what}")]


def keys_action(names: list[str], raw: str) -> Action:
    """Chord tap of ``names`` (canonicalised), or an ``invalid`` action naming the bad key."""
    try:
        return Key(tuple(normalize_key(n) for n in names))
    except (KeyNameError, ActionError) as exc:
        return invalid(raw, str(exc))


def keydown_action(names: list[str], raw: str, ctx: ParseContext) -> Action:
    """A key-down: held for ``keydown_seconds`` (see the module docstring)."""
    try:
        return Hold(tuple(normalize_key(n) for n in names), ctx.float_option("keydown_seconds"))
    except (KeyNameError, ActionError) as exc:
        return invalid(raw, str(exc))


def type_text(text: str, ctx: ParseContext) -> list[Action]:
    """Key taps that type ``text`` (see the module docstring)."""
    if not isinstance(text, str) or not text:
        return [invalid(str(text), "type action without text")]
    limit = ctx.int_option("max_type_chars")
    out: list[Action] = []
    for char in text[:limit]:
        chord = chord_for_char(char)
        if chord is None:
            out.append(invalid(char, f"character {char!r} has no canonical key; not typed"))
        else:
            out.append(Key(chord))
    if len(text) > limit:
        out.append(
            invalid(
                text[limit:],
                f"typed text longer than max_type_chars={limit}: "
                f"{len(text) - limit} characters not typed",
            )
        )
    return out


def finish() -> Action:
    """What "task finished" means in a game: nothing; the episode runs to its budget."""
    return Wait()


def merge_clicks(actions: list[Action]) -> list[Action]:
    """Fold consecutive clicks of one button at one point into one multi-click.

    A double click written as two clicks must reach the runtime as ``count: 2`` so that it is
    delivered fast enough to register as a double click.
    """
    out: list[Action] = []
    for action in actions:
        prev = out[-1] if out else None
        if (
            isinstance(action, Click)
            and isinstance(prev, Click)
            and (prev.x, prev.y, prev.button) == (action.x, action.y, action.button)
            and prev.count + action.count <= MAX_CLICK_COUNT
        ):
            out[-1] = Click(prev.x, prev.y, prev.button, prev.count + action.count)
        else:
            out.append(action)
    return out


def number(value: Any) -> float | None:
    """A finite float from a JSON/literal value or numeric string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        result = float(value)
    elif isinstance(value, str):
        try:
            result = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return result if math.isfinite(result) else None


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def numbers_in(text: str) -> list[float]:
    """All decimal numbers in ``text`` (for point and box strings like ``<point>12 34</point>``)."""
    return [float(m) for m in _NUMBER.findall(text[:MAX_RAW_CHARS])]


def point_from_numbers(values: list[float]) -> tuple[float, float] | None:
    """A point from two numbers, or the centre of an ``x1, y1, x2, y2`` box from four."""
    if len(values) == 2:
        return values[0], values[1]
    if len(values) == 4:
        return (values[0] + values[2]) / 2, (values[1] + values[3]) / 2
    return None
