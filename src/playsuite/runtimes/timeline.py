"""Turn a step's canonical actions into input events at game times inside one slice.

Runtimes that own their clock (browser: the page clock; native: wall time between SIGCONT and
SIGSTOP) execute a step as one timeline: input events and video frames interleaved in game time.
Actions of a step run one after another, so ``[key a, key b]`` types a then b, and a hold keeps
its keys down for its seconds of game time. A tap keeps the key down for a few frames because
games that poll keyboard state once per frame miss a press and release delivered together.
Whatever would fall after the end of the slice happens at its end, so no key or button is left
pressed while the game is paused, except the keys of a hold with ``release=False``.

Such a hold (a person holding a key in the live mode, never a model) leaves its keys down for
the next slice; the runtime keeps them in a :class:`KeysDown` and passes it to every
:func:`schedule`, which therefore never presses a key that is already down (a game counting
presses would count the same press again) and lets go of a key left down as soon as a slice
no longer keeps it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from playsuite.actions.canonical import Action, Click, Hold, Key, Move, Scroll

TAP_SECONDS = 0.1  # 6 frames at 60 fps, 2 for a software-rendered game at 20 fps
CLICK_SECONDS = 0.03  # button down time of one click; also the gap between multi-clicks
MOVE_STEPS_PER_SECOND = 30

Frame = TypeVar("Frame")  # a relative move spread over time is sent in steps at this rate


@dataclass(frozen=True)
class InputEvent:
    """One low-level input event at ``t`` seconds after the start of the slice.

    ``kind`` is ``key_down``/``key_up`` (``key``: canonical name), ``move`` (absolute ``x, y``),
    ``move_rel`` (``x, y`` are deltas), ``button_down``/``button_up`` (``button``) or ``wheel``
    (``y``: notches, positive is down).
    """

    t: float
    kind: str
    key: str = ""
    button: str = ""
    x: int = 0
    y: int = 0


def _split(total: int, parts: int) -> list[int]:
    """Integer steps that add up exactly to ``total``."""
    out, done = [], 0
    for i in range(1, parts + 1):
        target = round(total * i / parts)
        out.append(target - done)
        done = target
    return out


@dataclass
class KeysDown:
    """Keys a slice left down for the next one (holds with ``release=False``), in the order
    they went down. One per runtime instance: it mirrors the game's keyboard between slices."""

    keys: list[str] = field(default_factory=list)


def schedule(
    actions: Sequence[Action], seconds: float, down: KeysDown | None = None
) -> list[InputEvent]:
    """Events for ``actions`` played back to back from t=0, clipped to the slice end.

    ``down`` holds the keys the last slice left down and is updated to those this one leaves
    down. A key left down stays down (no second press) only while a hold with ``release=False``
    of this slice keeps it; any other is released at t=0. A key or hold that releases its keys
    is a whole press: a key of it that is down already is let go first, then pressed again.
    Without holds that keep keys down the events are those of independent slices.
    """
    state = down if down is not None else KeysDown()
    kept = {k for a in actions if isinstance(a, Hold) and not a.release for k in a.keys}
    held = [k for k in state.keys if k in kept]  # down at the current point of the walk
    events = [InputEvent(0.0, "key_up", key=k) for k in state.keys if k not in kept]
    t = 0.0
    for action in actions:
        if isinstance(action, Hold) and not action.release:
            # No end inside this slice: the next action does not wait for it.
            events += [InputEvent(t, "key_down", key=k) for k in action.keys if k not in held]
            held += [k for k in action.keys if k not in held]
        elif isinstance(action, Key | Hold):
            for k in action.keys:
                if k in held:  # a new press of a key that is down: let it go first
                    events.append(InputEvent(t, "key_up", key=k))
                    held.remove(k)
            length = TAP_SECONDS if isinstance(action, Key) else action.seconds
            events += [InputEvent(t, "key_down", key=k) for k in action.keys]
            events += [InputEvent(t + length, "key_up", key=k) for k in reversed(action.keys)]
            t += length
        elif isinstance(action, Click):
            events.append(InputEvent(t, "move", x=action.x, y=action.y))
            for _ in range(action.count):
                events.append(InputEvent(t, "button_down", button=action.button))
                events.append(InputEvent(t + CLICK_SECONDS, "button_up", button=action.button))
                t += 2 * CLICK_SECONDS
        elif isinstance(action, Move):
            if not action.relative:
                events.append(InputEvent(t, "move", x=int(action.x or 0), y=int(action.y or 0)))
            elif action.seconds is None:
                dx, dy = int(action.dx or 0), int(action.dy or 0)
                events.append(InputEvent(t, "move_rel", x=dx, y=dy))
            else:
                n = max(1, round(action.seconds * MOVE_STEPS_PER_SECOND))
                for i, (sx, sy) in enumerate(
                    zip(_split(action.dx or 0, n), _split(action.dy or 0, n), strict=True)
                ):
                    events.append(InputEvent(t + action.seconds * i / n, "move_rel", x=sx, y=sy))
                t += action.seconds
        elif isinstance(action, Scroll):
            if action.x is not None and action.y is not None:
                events.append(InputEvent(t, "move", x=action.x, y=action.y))
            sign = 1 if action.direction == "down" else -1
            events.append(InputEvent(t, "wheel", y=sign * action.notches))
        # Wait and Invalid: no events; the slice still runs.
    state.keys = held
    end = max(0.0, seconds)
    clipped = [InputEvent(min(e.t, end), e.kind, e.key, e.button, e.x, e.y) for e in events]
    return sorted(clipped, key=lambda e: e.t)  # stable: same-time events keep their order


def frame_times(seconds: float, n_frames: int) -> list[float]:
    """Evenly spaced capture times of a slice, the last one at its end (base.py contract)."""
    return [seconds * (i + 1) / n_frames for i in range(n_frames)]


def play_timeline(
    events: Sequence[InputEvent],
    captures: Sequence[float],
    advance_to: Callable[[float], None],
    apply: Callable[[InputEvent], None],
    capture: Callable[[], Frame],
    frames: list[Frame] | None = None,
) -> list[Frame]:
    """Walk events and capture times in game-time order; events win ties with captures.

    ``advance_to(t)`` lets the game run until ``t`` seconds into the slice; ``apply`` injects one
    event at the current game time; ``capture`` grabs the current screen. Captures are appended
    to ``frames`` when given, so a caller still holds what was captured when a call raises (the
    evidence of a game that crashed or hung mid-slice).
    """
    frames = [] if frames is None else frames
    ei = 0
    for tc in captures:
        while ei < len(events) and events[ei].t <= tc:
            advance_to(events[ei].t)
            apply(events[ei])
            ei += 1
        advance_to(tc)
        frames.append(capture())
    for event in events[ei:]:  # only possible when there are no captures
        advance_to(event.t)
        apply(event)
    return frames
