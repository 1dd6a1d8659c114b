"""The pygame host's patches: game time, frames and input as the game sees them.

Part of the in-sandbox host (:mod:`pygame_host`): standard library and pygame only, loaded beside
it. Every patch reads or moves the host's virtual clock (``host.t``), so the game's waits, timers,
key state and screen updates all go through the host. The originals the host itself still needs
are kept in ``host.real``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import time as _time
from collections import deque
from typing import Any

_REAL_LOCALTIME = _time.localtime
_REAL_GMTIME = _time.gmtime
_REAL_CTIME = _time.ctime
_REAL_STRFTIME = _time.strftime
EPOCH = 1717243200.0  # 2024-06-01 12:00:00 UTC: wall-clock reads are the same on every run


class PressedKeys(tuple):
    """``key.get_pressed()`` result indexable by pygame 2's large key codes."""

    def __new__(cls, pressed: set[int]):
        self = super().__new__(cls, [i in pressed for i in range(512)])
        self._pressed = frozenset(pressed)
        return self

    def __getitem__(self, index):
        if isinstance(index, int):
            return index in self._pressed
        return super().__getitem__(index)


class VirtualClock:
    """``pygame.time.Clock`` on the virtual clock: ``tick(fps)`` waits in game time.

    Games create their clocks themselves, so the host is a class attribute (set when pygame is
    patched), not an argument.
    """

    host: Any = None

    def __init__(self) -> None:
        self._last: float | None = None
        self._time = 0
        self._raw = 0
        self._deltas: deque[float] = deque(maxlen=10)

    def tick(self, framerate: float = 0) -> int:
        host = self.host
        now = host.t
        if self._last is None:
            self._last = now
        self._raw = round((now - self._last) * 1000)
        if framerate and framerate > 0:
            target = self._last + 1.0 / framerate
            host.advance(max(target - now, 0.0))
            host.flips_since_wait = 0
        else:
            host.on_poll()
        now = host.t
        delta = now - self._last
        self._last = now
        self._time = round(delta * 1000)
        if delta > 0:
            self._deltas.append(delta)
        return self._time

    tick_busy_loop = tick

    def get_time(self) -> int:
        return self._time

    def get_rawtime(self) -> int:
        return self._raw

    def get_fps(self) -> float:
        if not self._deltas:
            return 0.0
        return len(self._deltas) / sum(self._deltas)


def patch_time(host: Any) -> None:
    """Make ``time`` and ``datetime`` read the virtual clock; ``time.sleep`` waits in it."""
    base = 1000.0  # monotonic clocks start at an arbitrary positive value
    _time.time = lambda: EPOCH + host.now()
    _time.time_ns = lambda: int((EPOCH + host.now()) * 1e9)
    _time.monotonic = lambda: base + host.now()
    _time.monotonic_ns = lambda: int((base + host.now()) * 1e9)
    _time.perf_counter = lambda: base + host.now()
    _time.perf_counter_ns = lambda: int((base + host.now()) * 1e9)

    def sleep(seconds: float) -> None:
        host.advance(float(seconds))

    _time.sleep = sleep
    _time.localtime = lambda secs=None: _REAL_LOCALTIME(EPOCH + host.t if secs is None else secs)
    _time.gmtime = lambda secs=None: _REAL_GMTIME(EPOCH + host.t if secs is None else secs)
    _time.ctime = lambda secs=None: _REAL_CTIME(EPOCH + host.t if secs is None else secs)
    _time.strftime = lambda fmt, t=None: _REAL_STRFTIME(
        fmt, _REAL_LOCALTIME(EPOCH + host.t) if t is None else t
    )

    class VirtualDateTime(_dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls.fromtimestamp(EPOCH + host.t, tz)

        @classmethod
        def utcnow(cls):
            return cls.fromtimestamp(EPOCH + host.t, _dt.UTC).replace(tzinfo=None)

        @classmethod
        def today(cls):
            return cls.now()

    class VirtualDate(_dt.date):
        @classmethod
        def today(cls):
            return cls.fromtimestamp(EPOCH + host.t)

    _dt.datetime = VirtualDateTime
    _dt.date = VirtualDate


def patch_pygame(host: Any) -> None:
    """Patch ``host.pg`` (pygame) before the game imports it; originals go to ``host.real``."""
    pg = host.pg
    host.real.update(
        post=pg.event.post,
        poll=pg.event.poll,
        get_surface=pg.display.get_surface,
        set_mode=pg.display.set_mode,
        flip=pg.display.flip,
        update=pg.display.update,
        set_pos=pg.mouse.set_pos,
    )
    VirtualClock.host = host
    _patch_clock_api(host, pg)
    _patch_events(host, pg)
    _patch_display(host, pg)
    _patch_keys(host, pg)
    _patch_mouse(host, pg)


def _patch_clock_api(host: Any, pg: Any) -> None:
    """``pygame.time``: ticks, waits, clocks and timers on the virtual clock."""
    pg.time.get_ticks = lambda: int(host.now() * 1000)

    def wait(ms: int) -> int:
        host.advance(max(int(ms), 0) / 1000.0)
        return int(ms)

    pg.time.wait = wait
    pg.time.delay = wait
    pg.time.Clock = VirtualClock

    def set_timer(event, millis, loops=0):
        etype = event.type if hasattr(event, "type") else int(event)
        millis = int(millis)
        if millis <= 0:
            host.timers.pop(etype, None)
            return
        payload = event if hasattr(event, "type") else None
        host.timers[etype] = [host.t + millis / 1000.0, millis / 1000.0, payload, int(loops) or -1]

    pg.time.set_timer = set_timer


def _patch_events(host: Any, pg: Any) -> None:
    """``pygame.event``: reading events tells the host the game saw them; ``wait`` waits in
    game time."""

    def event_wait(timeout: int = 0):
        event = host.wait_event(int(timeout))
        host.seen()
        return event

    def reader(real):
        def read(*args, **kwargs):
            result = real(*args, **kwargs)
            host.seen()
            return result

        return read

    pg.event.get = reader(pg.event.get)
    pg.event.poll = reader(host.real["poll"])
    pg.event.pump = reader(pg.event.pump)
    pg.event.wait = event_wait


def _patch_display(host: Any, pg: Any) -> None:
    """``pygame.display``: no fullscreen, and every flip is a frame the host may capture."""

    def set_mode(size=(0, 0), flags=0, *args, **kwargs):
        flags &= ~pg.FULLSCREEN
        if hasattr(pg, "OPENGL") and flags & pg.OPENGL:
            host.gl = True
        if not size or tuple(size) == (0, 0):
            size = tuple(host.config.get("screen") or (800, 600))
        surface = host.real["set_mode"](size, flags, *args, **kwargs)
        if host.video_size is None:
            host.video_size = surface.get_size()
        host.cache_id = -1
        return surface

    pg.display.set_mode = set_mode
    pg.display.toggle_fullscreen = lambda: 1

    def flip():
        if host.gl:
            host.gl_capture()
        host.real["flip"]()
        host.on_flip()

    def update(*args, **kwargs):
        if host.gl:
            host.gl_capture()
        host.real["update"](*args, **kwargs)
        host.on_flip()

    pg.display.flip = flip
    pg.display.update = update


def _patch_keys(host: Any, pg: Any) -> None:
    """``pygame.key``: the state agrees with the injected key events."""
    pg.key.get_pressed = lambda: PressedKeys(host.pressed)
    pg.key.get_mods = host.mods
    pg.key.get_focused = lambda: True

    def set_repeat(delay=0, interval=0):
        host.repeat = (int(delay), int(interval or delay))

    pg.key.set_repeat = set_repeat
    pg.key.get_repeat = lambda: host.repeat


def _patch_mouse(host: Any, pg: Any) -> None:
    """``pygame.mouse``: position, buttons and motion agree with the injected mouse events."""
    pg.mouse.get_pos = lambda: host.mouse_pos

    def get_pressed(num_buttons=3):
        return tuple(host.buttons[: 5 if num_buttons == 5 else 3])

    pg.mouse.get_pressed = get_pressed
    pg.mouse.get_focused = lambda: True

    def get_rel():
        rel = tuple(host.mouse_rel)
        host.mouse_rel = [0, 0]
        return rel

    pg.mouse.get_rel = get_rel

    def set_pos(*pos):
        point = pos[0] if len(pos) == 1 else pos
        host.mouse_pos = (int(point[0]), int(point[1]))
        with contextlib.suppress(pg.error):
            host.real["set_pos"](host.mouse_pos)

    pg.mouse.set_pos = set_pos

    # The offscreen driver has no cursors: set_cursor raises ("Cursors are not currently
    # supported", "Error while creating system cursor") and games that dress the pointer at
    # start died there. The pointer is never in a captured frame, so the choice is only kept,
    # for get_cursor.
    real_set_cursor = pg.mouse.set_cursor

    def set_cursor(*args, **kwargs):
        host.cursor = (args, kwargs)
        with contextlib.suppress(pg.error):
            real_set_cursor(*args, **kwargs)

    pg.mouse.set_cursor = set_cursor
