"""Canonical key and mouse-button names.

Models spell keys in many ways (``Return``, ``ArrowLeft``, ``spacebar``, ``Ctrl``); runtimes each
need their own codes. Everything in between speaks one vocabulary: the lower-case canonical names
below. Normalising at the parser boundary means a runtime only has to map this closed set.
"""

from __future__ import annotations

import string

LETTERS = tuple(string.ascii_lowercase)
DIGITS = tuple(string.digits)
FUNCTION_KEYS = tuple(f"f{n}" for n in range(1, 13))
NAMED_KEYS = (
    "space",
    "enter",
    "escape",
    "tab",
    "backspace",
    "delete",
    "insert",
    "home",
    "end",
    "pageup",
    "pagedown",
    "up",
    "down",
    "left",
    "right",
    "shift",
    "ctrl",
    "alt",
    "meta",
    "capslock",
    "minus",
    "equal",
    "comma",
    "period",
    "slash",
    "backslash",
    "semicolon",
    "apostrophe",
    "grave",
    "bracketleft",
    "bracketright",
)

CANONICAL_KEYS: frozenset[str] = frozenset(LETTERS + DIGITS + FUNCTION_KEYS + NAMED_KEYS)
MODIFIER_KEYS: frozenset[str] = frozenset({"shift", "ctrl", "alt", "meta"})

#: Spellings seen from models, browsers (KeyboardEvent.key/code), X11 keysyms and pyautogui.
KEY_ALIASES: dict[str, str] = {
    "return": "enter",
    "ret": "enter",
    "kp_enter": "enter",
    "numpadenter": "enter",
    "esc": "escape",
    "spacebar": "space",
    "space_bar": "space",
    " ": "space",
    "control": "ctrl",
    "ctl": "ctrl",
    "lctrl": "ctrl",
    "rctrl": "ctrl",
    "leftctrl": "ctrl",
    "rightctrl": "ctrl",
    "control_l": "ctrl",
    "control_r": "ctrl",
    "controlleft": "ctrl",
    "controlright": "ctrl",
    "lshift": "shift",
    "rshift": "shift",
    "leftshift": "shift",
    "rightshift": "shift",
    "shift_l": "shift",
    "shift_r": "shift",
    "shiftleft": "shift",
    "shiftright": "shift",
    "lalt": "alt",
    "ralt": "alt",
    "alt_l": "alt",
    "alt_r": "alt",
    "altleft": "alt",
    "altright": "alt",
    "option": "alt",
    "cmd": "meta",
    "command": "meta",
    "super": "meta",
    "win": "meta",
    "windows": "meta",
    "metaleft": "meta",
    "metaright": "meta",
    "arrowup": "up",
    "arrowdown": "down",
    "arrowleft": "left",
    "arrowright": "right",
    "uparrow": "up",
    "downarrow": "down",
    "leftarrow": "left",
    "rightarrow": "right",
    "up_arrow": "up",
    "down_arrow": "down",
    "left_arrow": "left",
    "right_arrow": "right",
    "del": "delete",
    "ins": "insert",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "page_up": "pageup",
    "page_down": "pagedown",
    "prior": "pageup",
    "next": "pagedown",
    "back": "backspace",
    "bksp": "backspace",
    "caps": "capslock",
    "caps_lock": "capslock",
    "-": "minus",
    "=": "equal",
    "equals": "equal",
    ",": "comma",
    ".": "period",
    "dot": "period",
    "/": "slash",
    "\\": "backslash",
    ";": "semicolon",
    "'": "apostrophe",
    "quote": "apostrophe",
    "`": "grave",
    "backquote": "grave",
    "backtick": "grave",
    "[": "bracketleft",
    "]": "bracketright",
    "leftbracket": "bracketleft",
    "rightbracket": "bracketright",
}

#: Mouse buttons: canonical name -> aliases.
BUTTON_ALIASES: dict[str, str] = {
    "left": "left",
    "lmb": "left",
    "mouse1": "left",
    "leftclick": "left",
    "left_click": "left",
    "primary": "left",
    "right": "right",
    "rmb": "right",
    "mouse2": "right",
    "rightclick": "right",
    "right_click": "right",
    "secondary": "right",
    "middle": "middle",
    "mmb": "middle",
    "mouse3": "middle",
}
CANONICAL_BUTTONS: frozenset[str] = frozenset({"left", "right", "middle"})


class KeyNameError(ValueError):
    """A key or button name that maps to nothing canonical."""


def _squash(name: str) -> str:
    text = name.strip()
    if len(text) == 1:
        return text.lower()
    return text.lower().replace(" ", "").replace("-", "_") if text.lower() != "-" else "-"


def normalize_key(name: str) -> str:
    """Return the canonical key name for ``name`` or raise :class:`KeyNameError`.

    Accepts canonical names, the aliases above in any case, ``Key``/``Digit`` prefixed browser
    codes (``KeyA``, ``Digit1``) and X11/pygame-style ``K_`` prefixes.
    """
    if not isinstance(name, str) or not name.strip():
        if name == " ":
            return "space"
        raise KeyNameError(f"empty key name {name!r}")
    raw = name.strip()
    key = _squash(raw)
    if key in CANONICAL_KEYS:
        return key
    if key in KEY_ALIASES:
        return KEY_ALIASES[key]
    stripped = key.replace("_", "")
    if stripped in CANONICAL_KEYS:
        return stripped
    if stripped in KEY_ALIASES:
        return KEY_ALIASES[stripped]
    for prefix in ("key", "digit", "numpad", "kp", "k"):
        if stripped.startswith(prefix) and len(stripped) > len(prefix):
            rest = stripped[len(prefix) :]
            if rest in CANONICAL_KEYS:
                return rest
            if rest in KEY_ALIASES:
                return KEY_ALIASES[rest]
    if key in BUTTON_ALIASES or stripped in BUTTON_ALIASES:
        raise KeyNameError(f"{raw!r} is a mouse button, not a key")
    raise KeyNameError(f"unknown key name {raw!r}")


def normalize_button(name: str) -> str:
    """Return ``left``, ``right`` or ``middle`` for a mouse button spelling."""
    key = _squash(name) if isinstance(name, str) else ""
    for candidate in (key, key.replace("_", "")):
        if candidate in BUTTON_ALIASES:
            return BUTTON_ALIASES[candidate]
    raise KeyNameError(f"unknown mouse button {name!r}")


#: Characters typed with Shift on a US keyboard, and the unshifted key that carries them.
SHIFTED_CHARS: dict[str, str] = {
    "!": "1",
    "@": "2",
    "#": "3",
    "$": "4",
    "%": "5",
    "^": "6",
    "&": "7",
    "*": "8",
    "(": "9",
    ")": "0",
    "_": "minus",
    "+": "equal",
    "{": "bracketleft",
    "}": "bracketright",
    "|": "backslash",
    ":": "semicolon",
    '"': "apostrophe",
    "<": "comma",
    ">": "period",
    "?": "slash",
    "~": "grave",
}


def chord_for_char(char: str) -> tuple[str, ...] | None:
    """The key chord that types ``char`` on a US layout, or None when no canonical key does.

    Models "type" text; runtimes only press canonical keys. Lower-case letters, digits, space,
    newline, tab and the unshifted punctuation map to one key; capitals and the shifted
    punctuation map to ``shift`` plus the key. Anything else (accents, emoji) has no key.
    """
    if len(char) != 1:
        return None
    if char == "\n" or char == "\r":
        return ("enter",)
    if char == "\t":
        return ("tab",)
    if char == " ":
        return ("space",)
    if char in SHIFTED_CHARS:
        return ("shift", SHIFTED_CHARS[char])
    if char.isascii() and char.isalpha() and char.isupper():
        return ("shift", char.lower())
    if char.isascii() and (char.isalnum() or char in "-=,./\\;'`[]"):
        return (normalize_key(char),)
    return None


def is_mouse_button(name: str) -> bool:
    """True when ``name`` spells a mouse button (``LMB``, ``right click``...)."""
    try:
        normalize_button(name)
    except KeyNameError:
        return False
    return True
