"""The step timeline shared by the runtimes that own their clock: actions back to back, taps
long enough to be seen, nothing left pressed after the slice but the keys of a hold that keeps
them down (never pressed twice), captures evenly spaced."""

from __future__ import annotations

import pytest

from playsuite.actions.canonical import Click, Hold, Invalid, Key, Move, Scroll, Wait
from playsuite.runtimes.timeline import (
    TAP_SECONDS,
    InputEvent,
    KeysDown,
    frame_times,
    play_timeline,
    schedule,
)


def kinds(events: list[InputEvent]) -> list[tuple[float, str, str]]:
    return [(round(e.t, 3), e.kind, e.key or e.button) for e in events]


def test_actions_play_back_to_back() -> None:
    events = schedule([Hold(keys=("right",), seconds=0.5), Key(keys=("shift", "a"))], 3.0)
    assert kinds(events) == [
        (0.0, "key_down", "right"),
        (0.5, "key_up", "right"),
        (0.5, "key_down", "shift"),
        (0.5, "key_down", "a"),
        (0.5 + TAP_SECONDS, "key_up", "a"),
        (0.5 + TAP_SECONDS, "key_up", "shift"),
    ]


def test_everything_is_released_by_the_end_of_the_slice() -> None:
    events = schedule([Hold(keys=("space",), seconds=2.0), Click(x=3, y=4, count=2)], 1 / 3)
    assert max(e.t for e in events) == pytest.approx(1 / 3)
    downs = [e for e in events if e.kind.endswith("_down")]
    ups = [e for e in events if e.kind.endswith("_up")]
    assert len(downs) == len(ups) == 3


def test_pointer_events() -> None:
    events = schedule(
        [Move(dx=10, dy=-5, seconds=0.1), Scroll("down", 2, x=1, y=2), Wait(), Invalid("?")], 1.0
    )
    moves = [e for e in events if e.kind == "move_rel"]
    assert sum(e.x for e in moves) == 10 and sum(e.y for e in moves) == -5
    assert len(moves) == 3  # 30 steps per second
    assert [e.kind for e in events[-2:]] == ["move", "wheel"] and events[-1].y == 2


def test_captures_are_evenly_spaced_and_events_come_first() -> None:
    assert frame_times(1.0, 4) == [0.25, 0.5, 0.75, 1.0]
    log: list[str] = []
    frames = play_timeline(
        schedule([Key(keys=("a",))], 0.2),
        frame_times(0.2, 2),
        advance_to=lambda t: log.append(f"to {t:.2f}"),
        apply=lambda e: log.append(e.kind),
        capture=lambda: len(log),
    )
    assert log == ["to 0.00", "key_down", "to 0.10", "key_up", "to 0.10", "to 0.20"]
    assert frames == [5, 6]


def test_a_key_left_down_is_not_pressed_again_and_is_released_when_no_longer_kept() -> None:
    down = KeysDown()
    keep = [Hold(keys=("space", "right"), seconds=0.1, release=False)]
    assert kinds(schedule(keep, 0.1, down)) == [
        (0.0, "key_down", "space"),
        (0.0, "key_down", "right"),
    ]
    assert down.keys == ["space", "right"]
    assert schedule(keep, 0.1, down) == [] and down.keys == ["space", "right"]  # no new press
    # only right is kept: space goes up at the slice's start, before anything else
    events = schedule(
        [Key(keys=("a",)), Hold(keys=("right",), seconds=0.1, release=False)], 1.0, down
    )
    assert kinds(events) == [
        (0.0, "key_up", "space"),
        (0.0, "key_down", "a"),
        (TAP_SECONDS, "key_up", "a"),
    ]
    assert down.keys == ["right"]
    assert kinds(schedule([Wait()], 1.0, down)) == [(0.0, "key_up", "right")] and down.keys == []


def test_a_kept_hold_does_not_delay_what_follows_and_a_new_press_lets_go_first() -> None:
    down = KeysDown()
    events = schedule(
        [Hold(keys=("left",), seconds=0.5, release=False), Key(keys=("z",))], 1.0, down
    )
    assert kinds(events) == [
        (0.0, "key_down", "left"),
        (0.0, "key_down", "z"),
        (TAP_SECONDS, "key_up", "z"),
    ]
    # a tap of a key that is down is a press of its own: released first, pressed, released
    assert kinds(schedule([Key(keys=("left",))], 1.0, down)) == [
        (0.0, "key_up", "left"),
        (0.0, "key_down", "left"),
        (TAP_SECONDS, "key_up", "left"),
    ]
    assert down.keys == []


def test_without_kept_keys_the_state_changes_nothing() -> None:
    """The models' path: a state carried over many slices gives each slice's own events."""
    down = KeysDown()
    slices = [
        [Hold(keys=("right",), seconds=0.5), Key(keys=("shift", "a"))],
        [Hold(keys=("space",), seconds=2.0), Click(x=3, y=4, count=2)],
        [Move(dx=10, dy=-5, seconds=0.1), Scroll("down", 2, x=1, y=2), Wait(), Invalid("?")],
        [Key(keys=("right",)), Key(keys=("right",))],
    ]
    for actions in slices:
        assert schedule(actions, 1 / 3, down) == schedule(actions, 1 / 3)
        assert down.keys == []
