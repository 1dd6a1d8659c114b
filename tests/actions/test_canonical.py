import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playsuite.actions import (
    ActionError,
    Click,
    Hold,
    Key,
    KeyNameError,
    Move,
    Scroll,
    Wait,
    action_from_dict,
    actions_from_json,
    actions_to_json,
    clamp_to_screen,
    kept_down,
    normalize_button,
    normalize_key,
)


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("return", "enter"),
        ("Return", "enter"),
        ("esc", "escape"),
        ("ESC", "escape"),
        ("ArrowLeft", "left"),
        ("arrow_up", "up"),
        ("spacebar", "space"),
        ("Space", "space"),
        ("control", "ctrl"),
        ("Ctrl", "ctrl"),
        ("KeyA", "a"),
        ("Digit5", "5"),
        ("F12", "f12"),
        ("PageDown", "pagedown"),
        ("shift_l", "shift"),
        ("-", "minus"),
    ],
)
def test_key_aliases_normalise(alias: str, canonical: str) -> None:
    assert normalize_key(alias) == canonical


@pytest.mark.parametrize("bad", ["", "   ", "hyperdrive", "f13", "LMB"])
def test_unknown_keys_are_rejected(bad: str) -> None:
    with pytest.raises(KeyNameError):
        normalize_key(bad)


def test_mouse_buttons() -> None:
    assert normalize_button("LMB") == "left"
    assert normalize_button("rmb") == "right"
    assert normalize_button("Middle") == "middle"
    with pytest.raises(KeyNameError):
        normalize_button("space")


def test_hold_is_capped_at_two_seconds() -> None:
    assert Hold(["right"], 5.0).seconds == 2.0
    assert Hold(["right"], 0.8).seconds == 0.8
    with pytest.raises(ActionError):
        Hold(["right"], 0)


def test_a_hold_left_down_says_so_in_its_json_only() -> None:
    """``release`` is written only when false, so every model's trace reads as before."""
    kept = Hold(["up"], 0.1, release=False)
    assert kept.to_dict() == {"kind": "hold", "keys": ["up"], "seconds": 0.1, "release": False}
    assert Hold(["up"], 0.1).to_dict() == {"kind": "hold", "keys": ["up"], "seconds": 0.1}
    assert action_from_dict(kept.to_dict()) == kept
    assert action_from_dict({"kind": "hold", "keys": ["up"], "seconds": 1, "release": True}).release
    with pytest.raises(ActionError, match="release"):
        action_from_dict({"kind": "hold", "keys": ["up"], "seconds": 1, "release": "no"})


def test_kept_down_marks_only_the_holds_of_the_named_keys() -> None:
    actions = [Hold(["right"], 0.1), Key(["right"]), Hold(["z"], 0.1), Hold(["right", "z"], 0.1)]
    assert kept_down(actions, {"right"}) == [
        Hold(["right"], 0.1, release=False),
        Key(["right"]),
        Hold(["z"], 0.1),
        Hold(["right", "z"], 0.1),
    ]


def test_chord_keeps_order_and_drops_duplicates() -> None:
    assert Key(["Shift", "a", "shift"]).keys == ("shift", "a")


def test_round_trip_every_kind() -> None:
    actions = [
        Key(["shift", "a"]),
        Hold(["right", "space"], 0.5),
        Click(640, 360, "left", 2),
        Move(x=10, y=20),
        Move(dx=20, dy=-10, seconds=0.5),
        Scroll("down", 5),
        Scroll("up", 1, 3, 4),
        Wait(),
    ]
    data = actions_to_json(actions)
    assert data[0] == {"kind": "key", "keys": ["shift", "a"]}
    assert data[2] == {"kind": "click", "x": 640, "y": 360, "button": "left", "count": 2}
    assert data[4] == {"kind": "move", "dx": 20, "dy": -10, "seconds": 0.5}
    assert actions_from_json(json.dumps(data)) == actions


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"kind": "jump"}, "unknown action kind"),
        ({"kind": "key"}, "missing"),
        ({"kind": "key", "keys": []}, "non-empty"),
        ({"kind": "key", "keys": ["nope"]}, "unknown key"),
        ({"kind": "click", "x": 1}, "missing"),
        ({"kind": "click", "x": 1, "y": 2, "button": "thumb"}, "mouse button"),
        ({"kind": "click", "x": 1, "y": 2, "count": 0}, ">= 1"),
        ({"kind": "click", "x": "a", "y": 2}, "number"),
        ({"kind": "move", "x": 1, "dx": 2}, "either"),
        ({"kind": "move", "x": 1}, "both"),
        ({"kind": "scroll", "direction": "left"}, "'up' or 'down'"),
        ({"kind": "wait", "extra": 1}, "unknown fields"),
        ([1, 2], "JSON object"),
    ],
)
def test_invalid_objects_get_clear_errors(obj: object, message: str) -> None:
    with pytest.raises(ActionError, match=message):
        action_from_dict(obj)


def test_clamp_keeps_pointer_on_screen() -> None:
    assert clamp_to_screen(Click(800, -3), 800, 600) == Click(799, 0)
    assert clamp_to_screen(Move(x=-1, y=700), 800, 600) == Move(x=0, y=599)
    assert clamp_to_screen(Move(dx=900, dy=0), 800, 600) == Move(dx=900, dy=0)


@given(
    st.dictionaries(
        st.sampled_from(["kind", "keys", "x", "y", "seconds", "dx", "button"]),
        st.one_of(st.integers(), st.text(), st.floats(), st.none(), st.lists(st.text())),
    )
)
@pytest.mark.slow
def test_validation_only_raises_action_error(obj: dict) -> None:
    with contextlib.suppress(ActionError):
        action_from_dict(obj)
