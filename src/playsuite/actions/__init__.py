"""Action grammar: canonical actions, key names, and the per-family model output parsers."""

from playsuite.actions.canonical import (
    MAX_HOLD_SECONDS,
    Action,
    ActionError,
    Click,
    Hold,
    Invalid,
    Key,
    Move,
    Scroll,
    Wait,
    action_from_dict,
    actions_from_json,
    actions_to_json,
    clamp_to_screen,
    kept_down,
)
from playsuite.actions.keys import KeyNameError, normalize_button, normalize_key

__all__ = [
    "MAX_HOLD_SECONDS",
    "Action",
    "ActionError",
    "Click",
    "Hold",
    "Invalid",
    "Key",
    "KeyNameError",
    "Move",
    "Scroll",
    "Wait",
    "action_from_dict",
    "actions_from_json",
    "actions_to_json",
    "clamp_to_screen",
    "kept_down",
    "normalize_button",
    "normalize_key",
]
