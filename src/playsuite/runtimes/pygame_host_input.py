"""Input of the pygame host: the harness's scheduled events become pygame events.

Part of the in-sandbox host (:mod:`pygame_host`): standard library and pygame only, loaded beside
it. :class:`InputSchedule` is a mixin of the host: it posts each scheduled key, mouse and wheel
event when virtual time reaches it, and keeps the key and button state the patched
``pygame.key``/``pygame.mouse`` functions report.
"""

from __future__ import annotations

from typing import Any

BUTTONS = {"left": 1, "middle": 2, "right": 3}


def key_tables(pygame: Any) -> tuple[dict[str, int], dict[str, str], dict[int, int]]:
    """Canonical key name -> pygame key code, -> the text it types; modifier key -> its mask."""
    keys: dict[str, int] = {}
    unicode: dict[str, str] = {}
    names = {
        "space": ("K_SPACE", " "),
        "enter": ("K_RETURN", "\r"),
        "escape": ("K_ESCAPE", "\x1b"),
        "tab": ("K_TAB", "\t"),
        "backspace": ("K_BACKSPACE", "\x08"),
        "delete": ("K_DELETE", "\x7f"),
        "insert": ("K_INSERT", ""),
        "home": ("K_HOME", ""),
        "end": ("K_END", ""),
        "pageup": ("K_PAGEUP", ""),
        "pagedown": ("K_PAGEDOWN", ""),
        "up": ("K_UP", ""),
        "down": ("K_DOWN", ""),
        "left": ("K_LEFT", ""),
        "right": ("K_RIGHT", ""),
        "shift": ("K_LSHIFT", ""),
        "ctrl": ("K_LCTRL", ""),
        "alt": ("K_LALT", ""),
        "meta": ("K_LMETA", ""),
        "capslock": ("K_CAPSLOCK", ""),
        "minus": ("K_MINUS", "-"),
        "equal": ("K_EQUALS", "="),
        "comma": ("K_COMMA", ","),
        "period": ("K_PERIOD", "."),
        "slash": ("K_SLASH", "/"),
        "backslash": ("K_BACKSLASH", "\\"),
        "semicolon": ("K_SEMICOLON", ";"),
        "apostrophe": ("K_QUOTE", "'"),
        "grave": ("K_BACKQUOTE", "`"),
        "bracketleft": ("K_LEFTBRACKET", "["),
        "bracketright": ("K_RIGHTBRACKET", "]"),
    }
    for ch in "abcdefghijklmnopqrstuvwxyz0123456789":
        names[ch] = (f"K_{ch}", ch)
    for n in range(1, 13):
        names[f"f{n}"] = (f"K_F{n}", "")
    for name, (const, text) in names.items():
        if hasattr(pygame, const):
            keys[name] = getattr(pygame, const)
            unicode[name] = text
    mods = {
        pygame.K_LSHIFT: pygame.KMOD_LSHIFT,
        pygame.K_LCTRL: pygame.KMOD_LCTRL,
        pygame.K_LALT: pygame.KMOD_LALT,
        pygame.K_LMETA: getattr(pygame, "KMOD_LMETA", 0),
    }
    return keys, unicode, mods


class InputSchedule:
    """Scheduled input of the host (mixed into ``Host``, which owns the attributes used here:
    ``pg``, ``real``, ``t``, ``schedule``, ``fresh``, ``pressed``, ``buttons``, ``mouse_pos``,
    ``mouse_rel``, ``repeat``, ``video_size`` and ``push``). Every event reaches the game
    through :meth:`post`."""

    pg: Any
    real: dict
    keys: dict[str, int]
    unicode: dict[str, str]
    modifiers: dict[int, int]

    def deliver(self) -> None:
        """Post scheduled input events that are due.

        A release whose press the game has not seen yet (no flip or event read since) waits:
        a press and release in one batch would be invisible to games that poll key state.
        """
        now = self.t + 1e-9
        while self.schedule and self.schedule[0][0] <= now:
            t, _, event = self.schedule[0]
            if self.blocked(event):
                break
            self.schedule.pop(0)
            if event["kind"] in ("key_down", "button_down"):
                self.fresh.add((event.get("key"), event.get("button")))
            self.inject(event, t)

    def post(self, event: Any) -> None:
        """Post ``event`` to the game while its display is open.

        A game that quits through its own menu closes pygame (``pygame.quit()`` or
        ``display.quit()``) and may still wait a little before it returns; pygame refuses
        events then, and posting anyway would turn its clean exit into a crash. Its input is
        dropped instead.
        """
        if self.pg.display.get_init():
            self.real["post"](event)

    def blocked(self, event: dict) -> bool:
        return (
            event["kind"] in ("key_up", "button_up")
            and (event.get("key"), event.get("button")) in self.fresh
        )

    def seen(self) -> None:
        """The game read its events or showed a frame: pending releases may go."""
        self.fresh.clear()

    def inject(self, event: dict, t: float) -> None:
        """Post one event of :func:`playsuite.runtimes.timeline.schedule` as pygame events."""
        kind = event["kind"]
        if kind in ("key_down", "key_up", "repeat"):
            self._inject_key(kind, event, t)
        elif kind in ("move", "move_rel"):
            self._inject_motion(kind, event)
        elif kind in ("button_down", "button_up"):
            pg = self.pg
            button = BUTTONS.get(event.get("button") or "left", 1)
            self.buttons[button - 1] = kind == "button_down"
            etype = pg.MOUSEBUTTONDOWN if kind == "button_down" else pg.MOUSEBUTTONUP
            self.post(pg.event.Event(etype, {"pos": self.mouse_pos, "button": button}))
        elif kind == "wheel":
            self._inject_wheel(int(event.get("y", 0)))

    def _inject_key(self, kind: str, event: dict, t: float) -> None:
        pg = self.pg
        code = self.keys.get(event["key"])
        if code is None:
            return
        if kind == "repeat":
            if code not in self.pressed:
                return
            kind = "key_down"
            self.push(t + self.repeat[1] / 1000.0, event)
        elif kind == "key_down":
            self.pressed.add(code)
            if self.repeat[0] > 0:
                self.push(t + self.repeat[0] / 1000.0, {**event, "kind": "repeat"})
        else:
            self.pressed.discard(code)
        etype = pg.KEYDOWN if kind == "key_down" else pg.KEYUP
        mods = self.mods()
        text = self.unicode.get(event["key"], "")
        if mods & pg.KMOD_SHIFT:
            text = text.upper()
        attrs = {"key": code, "mod": mods, "scancode": 0, "unicode": text}
        self.post(pg.event.Event(etype, attrs))
        if kind == "key_down" and text and text.isprintable() and hasattr(pg, "TEXTINPUT"):
            self.post(pg.event.Event(pg.TEXTINPUT, {"text": text}))

    def _inject_motion(self, kind: str, event: dict) -> None:
        pg = self.pg
        x, y = int(event.get("x", 0)), int(event.get("y", 0))
        if kind == "move_rel":
            w, h = self.video_size or (1 << 16, 1 << 16)
            x = min(max(self.mouse_pos[0] + x, 0), w - 1)
            y = min(max(self.mouse_pos[1] + y, 0), h - 1)
        pos = (x, y)
        rel = (pos[0] - self.mouse_pos[0], pos[1] - self.mouse_pos[1])
        self.mouse_rel = [self.mouse_rel[0] + rel[0], self.mouse_rel[1] + rel[1]]
        self.mouse_pos = pos
        buttons = tuple(int(b) for b in self.buttons[:3])
        self.post(pg.event.Event(pg.MOUSEMOTION, {"pos": pos, "rel": rel, "buttons": buttons}))

    def _inject_wheel(self, notches: int) -> None:
        """``notches`` positive: down. A MOUSEWHEEL event (pygame 2) and buttons 4/5 each."""
        pg = self.pg
        for _ in range(abs(notches)):
            if hasattr(pg, "MOUSEWHEEL"):
                wheel = {"x": 0, "y": -1 if notches > 0 else 1, "flipped": False}
                self.post(pg.event.Event(pg.MOUSEWHEEL, wheel))
            for etype in (pg.MOUSEBUTTONDOWN, pg.MOUSEBUTTONUP):
                button = 5 if notches > 0 else 4
                self.post(pg.event.Event(etype, {"pos": self.mouse_pos, "button": button}))

    def mods(self) -> int:
        value = 0
        for code, mod in self.modifiers.items():
            if code in self.pressed:
                value |= mod
        return value
