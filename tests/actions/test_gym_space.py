"""The standard Gymnasium action space and its decoding into canonical actions."""

from __future__ import annotations

import numpy as np
import pytest

from playsuite.actions import Click, Hold, Key, Move, Scroll, Wait
from playsuite.actions.gym_space import KEY_NAMES, KINDS, action_space, decode


def point(kind: str, **fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "kind": KINDS.index(kind),
        "keys": np.zeros(3, dtype=np.int64),
        "seconds": np.array([0.5], dtype=np.float32),
        "pointer": np.array([0.5, 0.25], dtype=np.float32),
        "button": 0,
        "scroll": 0,
        "notches": 0,
    }
    base.update(fields)
    return base


def code(name: str) -> int:
    return KEY_NAMES.index(name) + 1


def test_each_kind_decodes_to_its_canonical_action() -> None:
    keys = np.array([code("ctrl"), 0, code("s")])
    assert decode(point("wait"), 200, 100) == Wait()
    assert decode(point("key", keys=keys), 200, 100) == Key(("ctrl", "s"))
    assert decode(point("hold", keys=keys), 200, 100) == Hold(("ctrl", "s"), 1.0)
    assert decode(point("click", button=1), 200, 100) == Click(100, 25, "right")
    assert decode(point("scroll", scroll=1, notches=2), 200, 100) == Scroll("down", 3, 100, 25)
    assert decode(point("move", pointer=np.array([1.0, 0.0])), 200, 100) == Move(x=199, y=0)


def test_keyless_key_is_a_wait_and_a_zero_hold_still_lasts() -> None:
    assert decode(point("key"), 10, 10) == Wait()
    hold = decode(point("hold", keys=np.array([code("up"), 0, 0]), seconds=np.array([0.0])), 1, 1)
    assert isinstance(hold, Hold) and hold.seconds > 0


@pytest.mark.parametrize(
    "bad",
    [{"kind": 6}, {"kind": -1}, {"button": 3}, {"keys": np.array([len(KEY_NAMES) + 1, 0, 0])}],
)
def test_points_outside_the_space_are_refused(bad: dict[str, object]) -> None:
    kind = "key" if "keys" in bad else "click"
    with pytest.raises(ValueError):
        decode({**point(kind), **bad}, 10, 10)


def test_every_sample_decodes_to_an_action_on_screen() -> None:
    space = action_space()
    space.seed(0)
    kinds = set()
    for _ in range(300):
        sample = space.sample()
        assert sample in space
        action = decode(sample, 64, 48)
        kinds.add(action.kind)
        x, y = getattr(action, "x", 0), getattr(action, "y", 0)
        assert 0 <= x < 64 and 0 <= y < 48
    assert kinds == set(KINDS)
