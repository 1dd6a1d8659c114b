"""A standard Gymnasium action space that encodes the canonical actions.

Reinforcement-learning libraries sample and learn over standard spaces, not over lists of
JSON actions, so the Gymnasium environments (``playsuite.harness.gym_registry``) offer this
``Dict`` space; :func:`decode` turns one of its points into one canonical action, which the
runtime then executes like any other. The encoding (every field is always present; only the
ones the ``kind`` needs are read):

``kind``     ``Discrete(6)``: 0 wait, 1 key (tap a chord), 2 hold, 3 click, 4 scroll, 5 move
``keys``     ``MultiDiscrete([K+1]*3)``: up to three keys of a chord; 0 is "no key", ``i`` is
             ``KEY_NAMES[i-1]`` (the sorted canonical key names). A key or hold with no key is a
             wait.
``seconds``  ``Box(0, 1, (1,))``: a hold lasts ``max(v, 0.05) * MAX_HOLD_SECONDS`` of game time
``pointer``  ``Box(0, 1, (2,))``: x, y as fractions of the screen's width and height (so the
             space does not change with a game's size); used by click, scroll and move
``button``   ``Discrete(3)``: left, right, middle (click; one click)
``scroll``   ``Discrete(2)``: up, down (scroll; ``notches`` notches at the pointer)
``notches``  ``Discrete(MAX_NOTCHES)``: ``v + 1`` wheel notches
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from playsuite.actions.canonical import (
    MAX_HOLD_SECONDS,
    Action,
    Click,
    Hold,
    Key,
    Move,
    Scroll,
    Wait,
)
from playsuite.actions.keys import CANONICAL_KEYS

KINDS = ("wait", "key", "hold", "click", "scroll", "move")
KEY_NAMES: tuple[str, ...] = tuple(sorted(CANONICAL_KEYS))
BUTTONS = ("left", "right", "middle")
DIRECTIONS = ("up", "down")
MAX_CHORD = 3
MAX_NOTCHES = 10
#: Shortest hold, as a fraction of MAX_HOLD_SECONDS: a hold of 0 s is no action.
MIN_HOLD_FRACTION = 0.05


def action_space() -> gym.spaces.Dict:
    """The space of encoded actions (see the module's docstring)."""
    return gym.spaces.Dict(
        {
            "kind": gym.spaces.Discrete(len(KINDS)),
            "keys": gym.spaces.MultiDiscrete([len(KEY_NAMES) + 1] * MAX_CHORD),
            "seconds": gym.spaces.Box(0.0, 1.0, (1,), np.float32),
            "pointer": gym.spaces.Box(0.0, 1.0, (2,), np.float32),
            "button": gym.spaces.Discrete(len(BUTTONS)),
            "scroll": gym.spaces.Discrete(len(DIRECTIONS)),
            "notches": gym.spaces.Discrete(MAX_NOTCHES),
        }
    )


def _pick(names: tuple[str, ...], value: Any) -> str:
    index = int(value)
    if not 0 <= index < len(names):
        raise IndexError(f"{index} is out of range")
    return names[index]


def _pixel(fraction: float, size: int) -> int:
    return min(max(int(float(fraction) * size), 0), size - 1)


def decode(point: dict[str, Any], width: int, height: int) -> Action:
    """The canonical action that ``point`` (a point of :func:`action_space`) encodes, on a
    screen of ``width`` × ``height`` pixels. Raises ``ValueError`` for a malformed point."""
    try:
        kind = _pick(KINDS, point["kind"])
        if kind == "wait":
            return Wait()
        if kind in ("key", "hold"):
            codes = np.asarray(point["keys"]).ravel()
            keys = [_pick(KEY_NAMES, int(i) - 1) for i in codes if int(i) > 0]
            if not keys:
                return Wait()
            if kind == "key":
                return Key(tuple(keys))
            fraction = max(float(np.asarray(point["seconds"]).ravel()[0]), MIN_HOLD_FRACTION)
            return Hold(tuple(keys), min(fraction, 1.0) * MAX_HOLD_SECONDS)
        x_frac, y_frac = np.asarray(point["pointer"], dtype=float).ravel()[:2]
        x, y = _pixel(x_frac, width), _pixel(y_frac, height)
        if kind == "click":
            return Click(x, y, _pick(BUTTONS, point["button"]))
        if kind == "scroll":
            return Scroll(_pick(DIRECTIONS, point["scroll"]), int(point["notches"]) + 1, x, y)
        return Move(x=x, y=y)
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"not a point of the PlaySuite action space: {point!r} ({exc})") from None
