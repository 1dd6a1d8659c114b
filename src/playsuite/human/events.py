"""The live mode's input: the page's key and mouse events become each slice's actions.

In the live mode the game plays short slices of game time back to back at the pace of the wall
clock (playsuite.human.play), and everything the person did during one slice is applied at the
start of the next, as canonical actions, so the runtimes, the sandbox and the trace are the
models' own. :class:`LiveInput` keeps which keys and buttons are down and, for each slice:

* a key still down at the end of the slice (pressed in it, or held from before and not
  released) is held past it: one :class:`~playsuite.actions.Hold` with ``release=False``, so the
  runtime keeps it down into the next slice instead of releasing it at the slice's end and
  pressing it again at the next (playsuite.runtimes.timeline); a key held for a second is one
  press, as a game that counts presses must see it;
* a key pressed and released within the slice is held for the whole slice (one ordinary hold of
  every such key), long enough for a game that polls the keyboard once a frame;
* a key held from before and released in the slice is let go at the slice's start: no hold
  keeps it, so the runtime releases it;
* a mouse button press becomes a click where it happened (``count`` presses in one slice);
* a wheel turn becomes a scroll at the pointer, and pointer motion a move to where the pointer
  ended, when nothing else in the slice moved it there already.

Presses of one key within one slice count once (a tenth of a second at the default rate).

Each event is kept, stamped with the wall-clock time the person made it and the game time at
which it reached the game, for the trace (``info.events``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playsuite.actions import Action, Click, Hold, KeyNameError, Move, Scroll, normalize_key
from playsuite.actions.canonical import MAX_HOLD_SECONDS

#: Event types the page sends.
EVENT_TYPES = frozenset({"keydown", "keyup", "mousedown", "mouseup", "mousemove", "wheel"})
BUTTONS = {0: "left", 1: "middle", 2: "right"}


class EventError(ValueError):
    """An event from the page that is not one (the page is told; nothing is recorded)."""


@dataclass(frozen=True)
class InputEvent:
    """One event of the page: ``kind`` (:data:`EVENT_TYPES`), a canonical ``key`` for key
    events, a ``button`` for mouse buttons, the game-screen point ``x, y`` where the pointer was,
    ``dy`` for the wheel, and ``t_wall``: seconds since the episode began, when it happened."""

    kind: str
    t_wall: float
    key: str = ""
    button: str = ""
    x: int | None = None
    y: int | None = None
    dy: float = 0.0

    def record(self, t_game: float) -> dict[str, Any]:
        """The trace's form of the event, stamped with the game time it was applied at."""
        out: dict[str, Any] = {"type": self.kind, "t_game": round(t_game, 4)}
        out["t_wall"] = round(self.t_wall, 4)
        if self.key:
            out["key"] = self.key
        if self.button:
            out["button"] = self.button
        if self.x is not None:
            out["x"], out["y"] = self.x, self.y
        if self.kind == "wheel":
            out["dy"] = self.dy
        return out


def parse_event(obj: Any, t_wall: float, screen: tuple[int, int]) -> InputEvent:
    """The page's JSON event as an :class:`InputEvent` (points clipped to ``screen``)."""
    if not isinstance(obj, dict) or obj.get("type") not in EVENT_TYPES:
        raise EventError(f"not an input event: {obj!r}")
    kind = obj["type"]
    if kind in ("keydown", "keyup"):
        try:
            return InputEvent(kind, t_wall, key=normalize_key(str(obj.get("key", ""))))
        except KeyNameError as exc:
            raise EventError(str(exc)) from None
    x, y = obj.get("x"), obj.get("y")
    if not isinstance(x, int | float) or not isinstance(y, int | float):
        raise EventError(f"a {kind} event needs x and y: {obj!r}")
    x = min(max(round(x), 0), screen[0] - 1)
    y = min(max(round(y), 0), screen[1] - 1)
    if kind in ("mousedown", "mouseup"):
        button = BUTTONS.get(obj.get("button", 0))
        if button is None:
            raise EventError(f"unknown mouse button {obj.get('button')!r}")
        return InputEvent(kind, t_wall, button=button, x=x, y=y)
    dy = float(obj.get("dy", 0.0)) if kind == "wheel" else 0.0
    return InputEvent(kind, t_wall, x=x, y=y, dy=dy)


@dataclass
class LiveInput:
    """Keys down between slices, and the events of the slice being collected."""

    held: list[str] = field(default_factory=list)
    pointer: tuple[int, int] | None = None
    pending: list[InputEvent] = field(default_factory=list)

    def add(self, event: InputEvent) -> None:
        self.pending.append(event)

    def take(self, seconds: float) -> tuple[list[Action], list[InputEvent]]:
        """The actions of the next slice of ``seconds`` (from the events since the last call)
        and those events. Keys still down at its end are held past it (``release=False``);
        the runtime lets go of them in the first slice whose actions no longer hold them."""
        events, self.pending = self.pending, []
        pressed: list[str] = []
        clicks: list[Action] = []
        scrolls: list[Action] = []
        moved_to: tuple[int, int] | None = None
        for event in events:
            if event.kind == "keydown":
                if event.key not in pressed:
                    pressed.append(event.key)
                if event.key not in self.held:
                    self.held.append(event.key)
            elif event.kind == "keyup":
                if event.key in self.held:
                    self.held.remove(event.key)
            elif event.kind == "mousedown":
                assert event.x is not None and event.y is not None
                clicks.append(Click(event.x, event.y, button=event.button))
                self.pointer = (event.x, event.y)
            elif event.kind == "wheel" and event.dy:
                assert event.x is not None and event.y is not None
                direction = "down" if event.dy > 0 else "up"
                scrolls.append(Scroll(direction, 1, event.x, event.y))
                self.pointer = (event.x, event.y)
            elif event.kind == "mousemove":
                assert event.x is not None and event.y is not None
                if (event.x, event.y) != self.pointer:
                    moved_to = self.pointer = (event.x, event.y)
        hold = min(seconds, MAX_HOLD_SECONDS)
        actions: list[Action] = []
        if self.held:  # first: a hold left down does not delay the actions after it
            actions.append(Hold(tuple(self.held), hold, release=False))
        if moved_to is not None and not clicks and not scrolls:
            actions.append(Move(x=moved_to[0], y=moved_to[1]))
        actions += _folded(clicks) + scrolls
        tapped = [k for k in pressed if k not in self.held]  # pressed and released in the slice
        if tapped:
            actions.append(Hold(tuple(tapped), hold))
        return actions, events


def _folded(clicks: list[Action]) -> list[Action]:
    """Presses of one button at one point in a slice as one multi-click."""
    out: list[Action] = []
    for click in clicks:
        last = out[-1] if out else None
        if (
            isinstance(last, Click)
            and isinstance(click, Click)
            and (last.x, last.y, last.button) == (click.x, click.y, click.button)
        ):
            out[-1] = Click(last.x, last.y, last.button, min(last.count + 1, 10))
        else:
            out.append(click)
    return out
