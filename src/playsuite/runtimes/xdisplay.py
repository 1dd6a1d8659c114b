"""A virtual X display per worker, and a client that finds, drives and captures game windows.

Native games and OpenGL pygame games need an X server; on a headless node that is Xvfb (Mesa's
llvmpipe gives them OpenGL in software). One :class:`VirtualDisplay` per worker is started once
and shared by the games that worker plays in turn; each game reaches it through the socket
``/tmp/.X11-unix/X{N}``, which the sandbox binds. Xvfb runs with ``-noreset``: without it the
server resets when its last client disconnects, and a game that is still connecting dies.
It also runs without the MIT-SHM extension: a game in the sandbox has an IPC namespace of its
own, so a shared-memory segment it makes cannot be attached by the server, and X programs that
use the extension without checking it (Xlib games such as ballz and kraptor) died with
``BadAccess`` on ``X_ShmAttach``. Without the extension every client takes the socket path;
the harness's own capture (mss) falls back to XGetImage too, about 2.4 ms instead of 0.5 ms for
an 800x600 window here, paid while the game's clock is stopped.

:class:`XClient` is the harness's own connection to that display: it lists top-level windows
(found by polling, by class, because PIDs inside a sandbox's PID namespace differ from ours),
focuses the game's window (many games have a same-size child window that drops keys), injects
input through the XTEST extension and grabs the window's pixels with mss (about a millisecond).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

DEFAULT_SIZE = (1920, 1080)
X11_SOCKET_DIR = Path("/tmp/.X11-unix")

#: Canonical key name -> X keysym name (letters, digits and f-keys are computed).
KEYSYMS = {
    "space": "space",
    "enter": "Return",
    "escape": "Escape",
    "tab": "Tab",
    "backspace": "BackSpace",
    "delete": "Delete",
    "insert": "Insert",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "pagedown": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "shift": "Shift_L",
    "ctrl": "Control_L",
    "alt": "Alt_L",
    "meta": "Super_L",
    "capslock": "Caps_Lock",
    "minus": "minus",
    "equal": "equal",
    "comma": "comma",
    "period": "period",
    "slash": "slash",
    "backslash": "backslash",
    "semicolon": "semicolon",
    "apostrophe": "apostrophe",
    "grave": "grave",
    "bracketleft": "bracketleft",
    "bracketright": "bracketright",
}
BUTTONS = {"left": 1, "middle": 2, "right": 3}
WHEEL_UP, WHEEL_DOWN = 4, 5


def keysym_name(key: str) -> str:
    """X keysym name of a canonical key (``a`` -> ``a``, ``f5`` -> ``F5``, ``up`` -> ``Up``)."""
    if len(key) == 1 and key.isalnum():
        return key
    if key.startswith("f") and key[1:].isdigit():
        return key.upper()
    return KEYSYMS[key]


class DisplayError(RuntimeError):
    """The X server could not be started or reached."""


class VirtualDisplay:
    """An Xvfb server owned by one worker (``with VirtualDisplay() as d: d.name -> ":7"``).

    ``-displayfd`` lets Xvfb pick a free display number and report it when it is ready, so
    several workers on one node never race for a number.
    """

    def __init__(self, size: tuple[int, int] = DEFAULT_SIZE, depth: int = 24) -> None:
        self.size = size
        self.depth = depth
        self._display: Any = None

    def start(self) -> VirtualDisplay:
        from pyvirtualdisplay import Display

        if self._display is not None:
            return self
        display = Display(
            backend="xvfb",
            size=self.size,
            color_depth=self.depth,
            use_xauth=False,
            manage_global_env=False,
            extra_args=["-noreset", "-nolisten", "tcp", "-extension", "MIT-SHM"],
        )
        try:
            display.start()
        except Exception as exc:
            raise DisplayError(f"cannot start Xvfb: {exc}") from exc
        self._display = display
        return self

    @property
    def name(self) -> str:
        if self._display is None:
            raise DisplayError("the display is not started")
        return f":{self._display.display}"

    @property
    def socket(self) -> Path:
        return X11_SOCKET_DIR / f"X{self._display.display}"

    @property
    def pid(self) -> int | None:
        return None if self._display is None else self._display.pid

    def is_alive(self) -> bool:
        return self._display is not None and self._display.is_alive()

    def stop(self) -> None:
        """Stop Xvfb (and reap it). Idempotent."""
        display, self._display = self._display, None
        if display is not None:
            try:
                display.stop()
            except Exception as exc:  # already dead: nothing to reap
                log.debug("Xvfb stop: %s", exc)

    def __enter__(self) -> VirtualDisplay:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass(frozen=True)
class Window:
    """A top-level window: X id, WM_CLASS (instance, class), title, root-relative geometry."""

    id: int
    wm_class: tuple[str, ...]
    title: str
    x: int
    y: int
    width: int
    height: int

    @property
    def area(self) -> int:
        return self.width * self.height


class XClient:
    """The harness's connection to one X display: windows, focus, XTEST input, capture."""

    def __init__(self, display: str) -> None:
        from Xlib import display as xdisplay
        from Xlib.error import DisplayError as XlibDisplayError

        try:
            self._d = xdisplay.Display(display)
        except (XlibDisplayError, OSError) as exc:
            raise DisplayError(f"cannot open X display {display}: {exc}") from exc
        if not self._d.has_extension("XTEST"):
            raise DisplayError(f"X display {display} has no XTEST extension")
        self.name = display
        self._root = self._d.screen().root
        geometry = self._root.get_geometry()
        self.screen_size = (geometry.width, geometry.height)
        self._mss: Any = None

    def start_round_trip(self) -> threading.Thread:
        """A request that needs the server's answer, sent from a thread of its own: while a
        client holds a server grab (``XGrabServer``) the server answers no one else, and a
        caller that must not block can wait on the thread with a timeout instead."""
        thread = threading.Thread(target=self._d.get_input_focus, daemon=True)
        thread.start()
        return thread

    # -- windows ------------------------------------------------------------------------------

    def windows(self) -> list[Window]:
        """Viewable top-level windows, largest first."""
        from Xlib import X
        from Xlib.error import XError

        out: list[Window] = []
        for child in self._root.query_tree().children:
            try:
                if child.get_attributes().map_state != X.IsViewable:
                    continue
                geometry = child.get_geometry()
                pos = child.translate_coords(self._root, 0, 0)
                wm_class = tuple(child.get_wm_class() or ())
                title = child.get_wm_name() or ""
            except XError:  # the window went away while we looked
                continue
            if geometry.width <= 1 or geometry.height <= 1:
                continue
            out.append(
                Window(
                    child.id,
                    wm_class,
                    title if isinstance(title, str) else title.decode(errors="replace"),
                    -pos.x,
                    -pos.y,
                    geometry.width,
                    geometry.height,
                )
            )
        return sorted(out, key=lambda w: w.area, reverse=True)

    def refresh(self, window: Window) -> Window | None:
        """The window's current geometry, or None when it no longer exists or is unmapped."""
        for current in self.windows():
            if current.id == window.id:
                return current
        return None

    def place_on_screen(self, window: Window) -> Window:
        """Move a window that lies partly off the screen to its top-left corner, and return it
        as it is now. There is no window manager to place windows: a game that centres itself
        on a screen of its own idea, or puts its window at (-1, -1), would be captured clipped
        (a 960x540 window at y = 690 of 1080 gave 390 rows). A window larger than the screen
        stays where it is."""
        from Xlib.error import XError

        sw, sh = self.screen_size
        inside = window.x >= 0 and window.y >= 0
        inside = inside and window.x + window.width <= sw and window.y + window.height <= sh
        if inside or window.width > sw or window.height > sh:
            return window
        try:
            self._d.create_resource_object("window", window.id).configure(x=0, y=0)
            self._d.sync()
        except XError:  # gone meanwhile: the caller finds out on its next look
            return window
        return self.refresh(window) or window

    def focused(self) -> int:
        """Id of the window that has the keyboard focus (0 or 1 for none / pointer root)."""
        focus = self._d.get_input_focus().focus
        return int(focus) if isinstance(focus, int) else int(focus.id)

    def focus(self, window: Window) -> None:
        """Raise the top-level window and give it the keyboard focus (no window manager here).

        Only when it does not have it already: every focus change sends the game a FocusIn, and
        SDL ignores keys for a moment after one.
        """
        from Xlib import X

        if self.focused() == window.id:
            return
        win = self._d.create_resource_object("window", window.id)
        win.configure(stack_mode=X.Above)
        win.set_input_focus(X.RevertToParent, X.CurrentTime)
        self._d.sync()

    # -- input --------------------------------------------------------------------------------

    def keycode(self, key: str) -> int:
        from Xlib import XK

        sym = XK.string_to_keysym(keysym_name(key))
        code = self._d.keysym_to_keycode(sym) if sym else 0
        if not code:
            raise DisplayError(f"no keycode for key {key!r} on {self.name}")
        return int(code)

    def key(self, key: str, down: bool) -> None:
        from Xlib import X
        from Xlib.ext import xtest

        xtest.fake_input(self._d, X.KeyPress if down else X.KeyRelease, self.keycode(key))
        self._d.sync()

    def prime_keyboard(self) -> None:
        """Tap Shift once so the first real key is not lost.

        The first XTEST event makes the XTEST keyboard the server's active device, which sends
        every client a keymap change; SDL games drop the key that comes with it.
        """
        self.key("shift", True)
        self.key("shift", False)

    def move(self, x: int, y: int) -> None:
        """Pointer to root coordinates (x, y)."""
        from Xlib import X
        from Xlib.ext import xtest

        xtest.fake_input(self._d, X.MotionNotify, x=int(x), y=int(y))
        self._d.sync()

    def move_relative(self, dx: int, dy: int) -> None:
        from Xlib import X
        from Xlib.ext import xtest

        xtest.fake_input(self._d, X.MotionNotify, detail=1, x=int(dx), y=int(dy))
        self._d.sync()

    def button(self, button: str | int, down: bool) -> None:
        from Xlib import X
        from Xlib.ext import xtest

        number = BUTTONS[button] if isinstance(button, str) else int(button)
        xtest.fake_input(self._d, X.ButtonPress if down else X.ButtonRelease, number)
        self._d.sync()

    def pointer(self) -> tuple[int, int]:
        reply = self._root.query_pointer()
        return int(reply.root_x), int(reply.root_y)

    # -- capture ------------------------------------------------------------------------------

    def capture(self, window: Window) -> np.ndarray:
        """The window's pixels (H×W×3 RGB), clipped to the screen."""
        import mss

        if self._mss is None:
            factory = getattr(mss, "MSS", None) or mss.mss  # mss >= 10 renames the factory
            self._mss = factory(display=self.name)
        sw, sh = self.screen_size
        left, top = max(window.x, 0), max(window.y, 0)
        right, bottom = min(window.x + window.width, sw), min(window.y + window.height, sh)
        if right <= left or bottom <= top:
            raise DisplayError(f"window {window.id:#x} is off screen")
        shot = self._mss.grab(
            {"left": left, "top": top, "width": right - left, "height": bottom - top}
        )
        bgra = np.frombuffer(shot.bgra, dtype=np.uint8).reshape(shot.height, shot.width, 4)
        return np.ascontiguousarray(bgra[:, :, 2::-1])

    def close(self) -> None:
        if self._mss is not None:
            try:
                self._mss.close()
            except Exception as exc:
                log.debug("mss close: %s", exc)
            self._mss = None
        try:
            self._d.close()
        except Exception as exc:
            log.debug("X close: %s", exc)

    def __enter__(self) -> XClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
