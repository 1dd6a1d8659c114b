"""Canonical actions: the one action vocabulary between parsers and runtimes.

Every parser produces these and every runtime consumes them, so the JSON form (DESIGN.md §3) is
a contract: traces store it, tests compare it, and a runtime never sees a model's raw spelling.
Construction validates, so an action that exists is an action a runtime can execute.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from playsuite.actions.keys import KeyNameError, normalize_button, normalize_key

MAX_HOLD_SECONDS = 2.0
MAX_CLICK_COUNT = 10
MAX_SCROLL_NOTCHES = 50
MAX_MOVE_SECONDS = 2.0


class ActionError(ValueError):
    """An action object that breaks the contract; the message names the field."""


def _keys(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not value:
        raise ActionError(f"'keys' must be a non-empty list of key names, got {value!r}")
    out: list[str] = []
    for name in value:
        try:
            key = normalize_key(name)
        except KeyNameError as exc:
            raise ActionError(str(exc)) from None
        if key not in out:
            out.append(key)
    return tuple(out)


def _int(value: Any, name: str, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ActionError(f"'{name}' must be a number, got {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ActionError(f"'{name}' must be finite, got {value!r}")
        value = round(value)
    if minimum is not None and value < minimum:
        raise ActionError(f"'{name}' must be >= {minimum}, got {value}")
    return int(value)


def _seconds(value: Any, name: str = "seconds") -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ActionError(f"'{name}' must be a finite number of seconds, got {value!r}")
    if value <= 0:
        raise ActionError(f"'{name}' must be positive, got {value}")
    return float(value)


@dataclass(frozen=True)
class Key:
    """Chord tap: press every key in order, then release them all."""

    keys: tuple[str, ...]
    kind: ClassVar[str] = "key"

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", _keys(self.keys))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "keys": list(self.keys)}


@dataclass(frozen=True)
class Hold:
    """Keys held down together for ``seconds`` of game time (capped at 2 s).

    ``release=False`` leaves the keys down past the end of the step, until a later step's
    actions let them go (playsuite.runtimes.timeline): a person in the live mode holds a key
    over many short slices, and releasing it at every slice's end would press it again at the
    next, so a game that counts presses would see one per slice. Such a hold has no end inside
    its slice, so the actions after it do not wait for it; ``seconds`` is kept for the trace.
    No parser produces it: a model's every key is released at the end of its step.
    """

    keys: tuple[str, ...]
    seconds: float
    release: bool = True
    kind: ClassVar[str] = "hold"

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", _keys(self.keys))
        object.__setattr__(self, "seconds", min(_seconds(self.seconds), MAX_HOLD_SECONDS))
        if not isinstance(self.release, bool):
            raise ActionError(f"'release' must be true or false, got {self.release!r}")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "keys": list(self.keys), "seconds": self.seconds}
        if not self.release:  # written only when set: every model's trace stays as it was
            out["release"] = False
        return out


@dataclass(frozen=True)
class Click:
    """``count`` clicks of ``button`` at screen pixel (x, y)."""

    x: int
    y: int
    button: str = "left"
    count: int = 1
    kind: ClassVar[str] = "click"

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", _int(self.x, "x"))
        object.__setattr__(self, "y", _int(self.y, "y"))
        try:
            object.__setattr__(self, "button", normalize_button(self.button))
        except KeyNameError as exc:
            raise ActionError(str(exc)) from None
        count = _int(self.count, "count", minimum=1)
        if count > MAX_CLICK_COUNT:
            raise ActionError(f"'count' must be <= {MAX_CLICK_COUNT}, got {count}")
        object.__setattr__(self, "count", count)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "x": self.x,
            "y": self.y,
            "button": self.button,
            "count": self.count,
        }


@dataclass(frozen=True)
class Move:
    """Pointer move: absolute to (x, y), or relative by (dx, dy) optionally spread over time."""

    x: int | None = None
    y: int | None = None
    dx: int | None = None
    dy: int | None = None
    seconds: float | None = None
    kind: ClassVar[str] = "move"

    def __post_init__(self) -> None:
        absolute = self.x is not None or self.y is not None
        relative = self.dx is not None or self.dy is not None
        if absolute == relative:
            raise ActionError("'move' needs either x and y (absolute) or dx and dy (relative)")
        if absolute:
            if self.x is None or self.y is None:
                raise ActionError("absolute 'move' needs both x and y")
            object.__setattr__(self, "x", _int(self.x, "x"))
            object.__setattr__(self, "y", _int(self.y, "y"))
            if self.seconds is not None:
                raise ActionError("'seconds' applies only to a relative move")
        else:
            object.__setattr__(self, "dx", _int(self.dx or 0, "dx"))
            object.__setattr__(self, "dy", _int(self.dy or 0, "dy"))
            if self.seconds is not None:
                seconds = min(_seconds(self.seconds), MAX_MOVE_SECONDS)
                object.__setattr__(self, "seconds", seconds)

    @property
    def relative(self) -> bool:
        return self.dx is not None

    def to_dict(self) -> dict[str, Any]:
        if not self.relative:
            return {"kind": self.kind, "x": self.x, "y": self.y}
        out: dict[str, Any] = {"kind": self.kind, "dx": self.dx, "dy": self.dy}
        if self.seconds is not None:
            out["seconds"] = self.seconds
        return out


@dataclass(frozen=True)
class Scroll:
    """Mouse-wheel notches up or down, optionally at a pointer position."""

    direction: Literal["up", "down"]
    notches: int = 1
    x: int | None = None
    y: int | None = None
    kind: ClassVar[str] = "scroll"

    def __post_init__(self) -> None:
        direction = str(self.direction).strip().lower()
        if direction not in ("up", "down"):
            raise ActionError(f"'direction' must be 'up' or 'down', got {self.direction!r}")
        object.__setattr__(self, "direction", direction)
        notches = _int(self.notches, "notches", minimum=1)
        object.__setattr__(self, "notches", min(notches, MAX_SCROLL_NOTCHES))
        if (self.x is None) != (self.y is None):
            raise ActionError("'scroll' position needs both x and y")
        if self.x is not None:
            object.__setattr__(self, "x", _int(self.x, "x"))
            object.__setattr__(self, "y", _int(self.y, "y"))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "direction": self.direction,
            "notches": self.notches,
        }
        if self.x is not None:
            out["x"], out["y"] = self.x, self.y
        return out


@dataclass(frozen=True)
class Wait:
    """Do nothing for this step; game time still advances by the slice."""

    kind: ClassVar[str] = "wait"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True)
class Invalid:
    """Output that could not be understood. Executed as a no-op and counted, never guessed."""

    raw: str
    reason: str = field(default="unparseable")
    kind: ClassVar[str] = "invalid"

    def __post_init__(self) -> None:
        object.__setattr__(self, "raw", str(self.raw))
        object.__setattr__(self, "reason", str(self.reason))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "raw": self.raw, "reason": self.reason}


Action = Key | Hold | Click | Move | Scroll | Wait | Invalid

_FIELDS: dict[str, tuple[type, frozenset[str], frozenset[str]]] = {
    # kind -> (class, required fields, optional fields)
    "key": (Key, frozenset({"keys"}), frozenset()),
    "hold": (Hold, frozenset({"keys", "seconds"}), frozenset({"release"})),
    "click": (Click, frozenset({"x", "y"}), frozenset({"button", "count"})),
    "move": (Move, frozenset(), frozenset({"x", "y", "dx", "dy", "seconds"})),
    "scroll": (Scroll, frozenset({"direction"}), frozenset({"notches", "x", "y"})),
    "wait": (Wait, frozenset(), frozenset()),
    "invalid": (Invalid, frozenset({"raw"}), frozenset({"reason"})),
}


def action_from_dict(data: Any) -> Action:
    """Validate one canonical action object and return it; :class:`ActionError` says why not."""
    if not isinstance(data, dict):
        raise ActionError(f"an action must be a JSON object, got {type(data).__name__}")
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise ActionError(f"unknown action kind {kind!r}; expected one of {sorted(_FIELDS)}")
    cls, required, optional = _FIELDS[kind]
    fields = set(data) - {"kind"}
    missing = required - fields
    if missing:
        raise ActionError(f"'{kind}' action is missing {sorted(missing)}")
    extra = fields - required - optional
    if extra:
        raise ActionError(f"'{kind}' action has unknown fields {sorted(extra)}")
    return cls(**{name: data[name] for name in fields})


def actions_from_json(text: str) -> list[Action]:
    """Parse a JSON list (or one object) of canonical actions."""
    data = json.loads(text)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise ActionError("expected a JSON list of actions")
    return [action_from_dict(item) for item in data]


def actions_to_json(actions: list[Action]) -> list[dict[str, Any]]:
    """JSON-ready list, the form stored in ``trace.jsonl``."""
    return [action.to_dict() for action in actions]


def kept_down(actions: Sequence[Action], keys: Collection[str]) -> list[Action]:
    """``actions`` with every hold whose keys are all in ``keys`` left down past the step
    (``release=False``). The grammar has no word for a key left down, so a person's keys still
    down at the end of a live slice travel beside the answer's text and are put back on the
    parsed holds with this (playsuite.agents.agent)."""
    names = set(keys)
    return [
        replace(a, release=False) if isinstance(a, Hold) and set(a.keys) <= names else a
        for a in actions
    ]


def clamp_to_screen(action: Action, width: int, height: int) -> Action:
    """Keep pointer coordinates on screen: models sometimes answer one pixel past the edge."""

    def cx(v: int) -> int:
        return min(max(v, 0), width - 1)

    def cy(v: int) -> int:
        return min(max(v, 0), height - 1)

    if isinstance(action, Click):
        return Click(cx(action.x), cy(action.y), action.button, action.count)
    if isinstance(action, Move) and not action.relative:
        return Move(x=cx(action.x), y=cy(action.y))  # type: ignore[arg-type]
    if isinstance(action, Scroll) and action.x is not None:
        return Scroll(action.direction, action.notches, cx(action.x), cy(action.y))  # type: ignore[arg-type]
    return action
