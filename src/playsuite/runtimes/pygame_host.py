"""In-sandbox host for pygame games: a paced virtual clock, frame capture, injected input.

Started as a script by :mod:`playsuite.runtimes.pygame_runtime` inside the sandbox, under the
game's interpreter (Debian's ``/usr/bin/python3`` or a per-game venv), never imported by the
harness. It may use only the standard library, pygame and (optionally) numpy.

pygame and the clock functions are patched before the game is imported:

* Time is virtual. It moves only when the game waits (``Clock.tick``, ``time.wait/delay``,
  ``time.sleep``, ``event.wait``), by exactly what the game asked for, so each game keeps its
  designed speed. A game that never waits gets 1/30 s per flipped frame once it has flipped
  several frames without waiting. ``get_ticks``, ``time.time``/``monotonic``/``perf_counter``
  and ``datetime.now`` read the virtual clock; timers fire on it.
* Frames are taken at ``display.flip/update`` (``glReadPixels`` before the swap for OpenGL).
* Input arrives as posted KEY/MOUSE events at scheduled virtual times, and ``key.get_pressed``,
  ``key.get_mods`` and the mouse state are patched to agree with them.
* Fullscreen is removed; ``random`` (and numpy's global generator) are seeded.

Protocol: the harness writes one JSON line per command to stdin; the host answers on stdout with
``[4-byte big-endian header length][JSON header][payload]`` where the payload holds RGB frames.
The game's own prints go to stderr. Game time is paused whenever the host waits for a command.
Both pipes are moved to close-on-exec descriptors high above the ones a game opens
(:func:`_protocol_fd`). That keeps them from programs the game starts and from stray writes, not
from game code itself, which shares this process: the harness checks every message against what
it asked for (``playsuite.runtimes.host_protocol``).

A game that hangs inside a slice never comes back to the host, so a watchdog thread reports the
slice after ``stall_s`` seconds of wall time (sent with the ``act`` command, shortly before the
harness gives up): a ``frames`` message marked ``stalled`` with the frames captured so far, then
the host exits. The video keeps what the game showed before it hung.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import importlib
import json
import os
import random
import resource
import struct
import sys
import threading
import time as _time
import traceback
import types
from collections import deque

_REAL_MONOTONIC = _time.monotonic
_REAL_SLEEP = _time.sleep
_REAL_LOCALTIME = _time.localtime
_REAL_GMTIME = _time.gmtime
_REAL_CTIME = _time.ctime
_REAL_STRFTIME = _time.strftime
EPOCH = 1717243200.0  # 2024-06-01 12:00:00 UTC: wall-clock reads are the same on every run
NOWAIT_STEP = 1.0 / 30.0
PROBE_FILE = "<probe"  # probes are compiled as "<probe NAME>": not game frames
PROTOCOL_FD_FLOOR = 900  # the protocol pipes sit at or above this descriptor number


class Host:
    """Virtual clock, input schedule and frame sampling; one instance per process."""

    def __init__(self, config: dict, proto_in, proto_out) -> None:
        self.config = config
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.t = 0.0
        self.main_thread = threading.main_thread()
        self.timers: dict[int, list] = {}  # type -> [next_t, interval, event, loops_left]
        self.schedule: list[tuple[float, int, dict]] = []  # (t, seq, event) sorted
        self.seq = 0
        self.slice_end: float | None = None  # None while launching
        self.slice_start = 0.0
        self.samples: deque[float] = deque()
        self.frames: list[bytes] = []
        self.flips = 0
        self.flips_since_wait = 0
        self.polls_since_wait = 0
        self.nowait_frames = int(config.get("nowait_frames", 10))
        self.blank_limit = float(config.get("blank_limit_s", 30.0))
        self.ready = False
        self.video_size: tuple[int, int] | None = None
        self.cache_id = -1
        self.cache: bytes | None = None
        self.gl = False
        self.pressed: set[int] = set()
        self.buttons = [False, False, False, False, False]
        self.mouse_pos = (0, 0)
        self.mouse_rel = [0, 0]
        self.repeat: tuple[int, int] = (0, 0)
        self.namespace: dict = {}
        self.compiled: dict[str, types.CodeType] = {}  # probe name -> compiled expression
        self.fresh: set = set()
        self.send_lock = threading.RLock()  # the main thread and the stall watchdog both send
        self.slice_wall_start: float | None = None  # real time the running slice began
        self.stall_s: float | None = None

    # ------------------------------------------------------------------ protocol

    def send(self, header: dict, payload: bytes = b"") -> None:
        header["payload"] = len(payload)
        data = json.dumps(header).encode()
        with self.send_lock:
            self.proto_out.write(struct.pack(">I", len(data)) + data)
            if payload:
                self.proto_out.write(payload)
            self.proto_out.flush()

    def send_slice_end(self, header: dict, payload: bytes) -> None:
        """Send the message that ends the running slice; the watchdog has nothing left to do."""
        with self.send_lock:
            self.slice_wall_start = None
            self.send(header, payload)

    def watch_for_stalls(self) -> None:
        """(Its own thread.) Report a slice the game has not returned from within ``stall_s``:
        the frames captured so far, marked ``stalled``, then exit (the harness ends the game)."""
        while True:
            _REAL_SLEEP(0.05)
            started, limit = self.slice_wall_start, self.stall_s
            if started is None or limit is None or _REAL_MONOTONIC() - started < limit:
                continue
            with self.send_lock:
                if self.slice_wall_start is not started:
                    continue  # the slice ended meanwhile
                frames = list(self.frames)
                w, h = self.video_size or (0, 0)
                header = {"type": "frames", "stalled": True, "t": round(self.t, 6)}
                header.update(count=len(frames), width=w, height=h, flips=self.flips, probes={})
                self.send(header, b"".join(frames))
                os._exit(0)

    def command(self) -> dict:
        line = self.proto_in.readline()
        if not line:
            os._exit(0)  # the harness is gone: nothing left to play for
        return json.loads(line)

    def pause(self) -> None:
        """Game time is frozen here until an ``act`` command arrives."""
        while True:
            cmd = self.command()
            kind = cmd.get("cmd")
            if kind == "observe":
                frame = self.grab()
                self.send(self.status("frame", 1 if frame else 0), frame or b"")
            elif kind == "act":
                self.begin_slice(float(cmd["seconds"]), int(cmd["frames"]), cmd.get("events", []))
                self.stall_s = cmd.get("stall_s")
                self.slice_wall_start = _REAL_MONOTONIC()
                return
            elif kind == "quit":
                os._exit(0)
            else:
                self.send({"type": "error", "error": f"unknown command {kind!r}"})

    def status(self, kind: str, count: int) -> dict:
        w, h = self.video_size or (0, 0)
        return {
            "type": kind,
            "t": round(self.slice_end if self.slice_end is not None else self.t, 6),
            "clock": round(self.t, 6),
            "count": count,
            "width": w,
            "height": h,
            "flips": self.flips,
            "probes": self.probes(),
        }

    def probes(self) -> dict:
        out = {}
        scope = {
            "sys": sys,
            "modules": sys.modules,
            "main": self.namespace,
            "pygame": pygame,
            "frames": running_frames,
            "local": running_local,
        }
        for name, expr in (self.config.get("probes") or {}).items():
            try:
                code = self.compiled.get(name)
                if code is None:
                    code = self.compiled[name] = compile(expr, f"{PROBE_FILE} {name}>", "eval")
                value = eval(code, scope)  # probes are corpus-declared expressions
                if not isinstance(value, (int, float, str, bool, type(None))):
                    value = repr(value)[:200]
                out[name] = value
            except Exception as exc:  # a probe must never break the game
                out[name] = None
                out[f"{name}.error"] = f"{type(exc).__name__}: {exc}"[:200]
        return out

    # ------------------------------------------------------------------ clock

    def begin_slice(self, seconds: float, frames: int, events: list[dict]) -> None:
        start = self.slice_end if self.slice_end is not None else self.t
        self.slice_start = start
        self.slice_end = start + seconds
        self.samples = deque(start + seconds * (i + 1) / frames for i in range(frames))
        self.frames = []
        for event in events:
            self.push(start + float(event.get("t", 0.0)), event)
        self.deliver()

    def push(self, t: float, event: dict) -> None:
        self.seq += 1
        self.schedule.append((t, self.seq, event))
        self.schedule.sort(key=lambda item: (item[0], item[1]))

    def next_deadline(self) -> float | None:
        candidates = [timer[0] for timer in self.timers.values()]
        if self.schedule and not self.blocked(self.schedule[0][2]):
            candidates.append(self.schedule[0][0])
        if self.samples:
            candidates.append(self.samples[0])
        if self.slice_end is not None:
            candidates.append(self.slice_end)
        return min(candidates) if candidates else None

    def advance(self, dt: float, waited: bool = True) -> None:
        """Move virtual time forward by ``dt``, firing everything due on the way."""
        if threading.current_thread() is not self.main_thread:
            _REAL_SLEEP(min(max(dt, 0.0), 0.05))
            return
        if waited and dt > 0:
            self.flips_since_wait = 0
        self.polls_since_wait = 0
        target = self.t + max(dt, 0.0)
        while True:
            deadline = self.next_deadline()
            if deadline is None or deadline > target:
                break
            self.t = max(self.t, deadline)
            self.fire_due()
        self.t = target
        self.fire_due()
        if not self.ready and self.t > self.blank_limit:
            self.launch_failed(f"no non-blank frame within {self.blank_limit:g} s of game time")

    def fire_due(self) -> None:
        now = self.t + 1e-9
        for etype, timer in list(self.timers.items()):
            while timer[0] <= now and self.timers.get(etype) is timer:
                event = timer[2] if timer[2] is not None else pygame.event.Event(etype)
                _real["post"](event)
                timer[3] -= 1
                if timer[3] == 0:
                    del self.timers[etype]
                    break
                timer[0] += timer[1]
        self.deliver()
        while self.samples and self.samples[0] <= now:
            self.samples.popleft()
            self.frames.append(self.grab() or b"")
        if self.slice_end is not None and self.slice_end <= now and not self.samples:
            self.end_slice()

    def end_slice(self) -> None:
        frames = self.frames
        self.frames = []
        header = self.status("frames", len(frames))
        self.send_slice_end(header, b"".join(frames))
        self.pause()

    # ------------------------------------------------------------------ input

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
            code = KEYS.get(event["key"])
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
            etype = pygame.KEYDOWN if kind == "key_down" else pygame.KEYUP
            mods = self.mods()
            text = UNICODE.get(event["key"], "")
            if mods & pygame.KMOD_SHIFT:
                text = text.upper()
            attrs = {"key": code, "mod": mods, "scancode": 0, "unicode": text}
            _real["post"](pygame.event.Event(etype, attrs))
            if kind == "key_down" and text and text.isprintable() and hasattr(pygame, "TEXTINPUT"):
                _real["post"](pygame.event.Event(pygame.TEXTINPUT, {"text": text}))
        elif kind in ("move", "move_rel"):
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
            _real["post"](
                pygame.event.Event(pygame.MOUSEMOTION, {"pos": pos, "rel": rel, "buttons": buttons})
            )
        elif kind in ("button_down", "button_up"):
            button = BUTTONS.get(event.get("button") or "left", 1)
            self.buttons[button - 1] = kind == "button_down"
            etype = pygame.MOUSEBUTTONDOWN if kind == "button_down" else pygame.MOUSEBUTTONUP
            _real["post"](pygame.event.Event(etype, {"pos": self.mouse_pos, "button": button}))
        elif kind == "wheel":
            notches = int(event.get("y", 0))  # positive: down
            for _ in range(abs(notches)):
                if hasattr(pygame, "MOUSEWHEEL"):
                    wheel = {"x": 0, "y": -1 if notches > 0 else 1, "flipped": False}
                    _real["post"](pygame.event.Event(pygame.MOUSEWHEEL, wheel))
                for etype in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
                    button = 5 if notches > 0 else 4
                    _real["post"](
                        pygame.event.Event(etype, {"pos": self.mouse_pos, "button": button})
                    )

    def mods(self) -> int:
        value = 0
        for code, mod in MODS.items():
            if code in self.pressed:
                value |= mod
        return value

    # ------------------------------------------------------------------ frames

    def grab(self) -> bytes | None:
        if self.cache_id == self.flips and self.cache is not None:
            return self.cache
        surface = _real["get_surface"]()
        if surface is None or self.gl:
            return self.cache
        self.cache = self.encode(surface)
        self.cache_id = self.flips
        return self.cache

    def encode(self, surface) -> bytes:
        if self.video_size is None:
            self.video_size = surface.get_size()
        if surface.get_size() != self.video_size:
            surface = pygame.transform.scale(surface, self.video_size)
        to_bytes = getattr(pygame.image, "tobytes", None) or pygame.image.tostring
        return to_bytes(surface, "RGB")

    def gl_capture(self) -> None:
        import ctypes

        surface = _real["get_surface"]()
        w, h = surface.get_size()
        gl = ctypes.CDLL("libGL.so.1")
        buf = ctypes.create_string_buffer(w * h * 3)
        gl.glPixelStorei(0x0D05, 1)  # GL_PACK_ALIGNMENT
        gl.glReadPixels(0, 0, w, h, 0x1907, 0x1401, buf)  # GL_RGB, GL_UNSIGNED_BYTE
        image = pygame.image.frombuffer(buf.raw, (w, h), "RGB")
        self.cache = self.encode(pygame.transform.flip(image, False, True))
        self.cache_id = self.flips + 1

    def on_flip(self) -> None:
        self.flips += 1
        self.seen()
        self.flips_since_wait += 1
        if not self.ready:
            frame = self.grab()
            if frame and frame.count(frame[:3]) * 3 != len(frame):
                self.ready = True
                self.send(self.status("ready", 1), frame)
                self.pause()
                return
        if self.flips_since_wait > self.nowait_frames:
            self.advance(NOWAIT_STEP, waited=False)

    def on_poll(self) -> None:
        """A game spinning on the clock without waiting would hang: let a millisecond pass."""
        self.polls_since_wait += 1
        if self.polls_since_wait > 200:
            self.advance(0.001, waited=False)

    def launch_failed(self, reason: str) -> None:
        self.send({"type": "exit", "code": None, "error": reason, "launch": True})
        os._exit(3)

    # ------------------------------------------------------------------ waiting for events

    def wait_event(self, timeout_ms: int = 0):
        limit = self.t + timeout_ms / 1000.0 if timeout_ms > 0 else None
        while True:
            event = _real["poll"]()
            if event.type != pygame.NOEVENT:
                return event
            deadline = self.next_deadline()
            if limit is not None and (deadline is None or deadline > limit):
                self.advance(limit - self.t)
                return pygame.event.Event(pygame.NOEVENT)
            if deadline is None:
                deadline = self.t + 1.0  # launching with nothing scheduled: let time pass
            self.advance(max(deadline - self.t, 0.0))


def running_frames(function: str) -> list[dict]:
    """Locals of each running call of ``function`` on the game's stack, innermost first.

    For probes: much game state lives in local variables (a ``Game`` object made inside
    ``main()``), out of reach of module globals. Probes run while the game is paused inside one
    of its own calls, so its frames are on this stack. ``function`` is a function name
    (``main``) or a qualified name (``Game.run``). The host's and the probes' own frames are
    skipped.
    """
    found = []
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        ours = code.co_filename == __file__ or code.co_filename.startswith(PROBE_FILE)
        if not ours and function in (code.co_name, getattr(code, "co_qualname", None)):
            found.append(frame.f_locals)
        frame = frame.f_back
    return found


def running_local(function: str, name: str = "self"):
    """Local ``name`` of the innermost running call of ``function``, or ``None`` (probes)."""
    calls = running_frames(function)
    return calls[0].get(name) if calls else None


host: Host
pygame: types.ModuleType
_real: dict = {}
KEYS: dict[str, int] = {}
UNICODE: dict[str, str] = {}
MODS: dict[int, int] = {}
BUTTONS = {"left": 1, "middle": 2, "right": 3}


def _key_tables() -> None:
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
            KEYS[name] = getattr(pygame, const)
            UNICODE[name] = text
    MODS.update(
        {
            pygame.K_LSHIFT: pygame.KMOD_LSHIFT,
            pygame.K_LCTRL: pygame.KMOD_LCTRL,
            pygame.K_LALT: pygame.KMOD_LALT,
            pygame.K_LMETA: getattr(pygame, "KMOD_LMETA", 0),
        }
    )


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
    """``pygame.time.Clock`` on the virtual clock: ``tick(fps)`` waits in game time."""

    def __init__(self) -> None:
        self._last: float | None = None
        self._time = 0
        self._raw = 0
        self._deltas: deque[float] = deque(maxlen=10)

    def tick(self, framerate: float = 0) -> int:
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


def _vnow() -> float:
    host.on_poll()
    return host.t


def _patch_time() -> None:
    base = 1000.0  # monotonic clocks start at an arbitrary positive value
    _time.time = lambda: EPOCH + _vnow()
    _time.time_ns = lambda: int((EPOCH + _vnow()) * 1e9)
    _time.monotonic = lambda: base + _vnow()
    _time.monotonic_ns = lambda: int((base + _vnow()) * 1e9)
    _time.perf_counter = lambda: base + _vnow()
    _time.perf_counter_ns = lambda: int((base + _vnow()) * 1e9)

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


def _patch_pygame() -> None:
    pg = pygame
    _real.update(
        post=pg.event.post,
        poll=pg.event.poll,
        get_surface=pg.display.get_surface,
        set_mode=pg.display.set_mode,
        flip=pg.display.flip,
        update=pg.display.update,
        set_pos=pg.mouse.set_pos,
    )
    pg.time.get_ticks = lambda: int(_vnow() * 1000)

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
    pg.event.poll = reader(_real["poll"])
    pg.event.pump = reader(pg.event.pump)

    pg.event.wait = event_wait

    def set_mode(size=(0, 0), flags=0, *args, **kwargs):
        flags &= ~pg.FULLSCREEN
        if hasattr(pg, "OPENGL") and flags & pg.OPENGL:
            host.gl = True
        if not size or tuple(size) == (0, 0):
            size = tuple(host.config.get("screen") or (800, 600))
        surface = _real["set_mode"](size, flags, *args, **kwargs)
        if host.video_size is None:
            host.video_size = surface.get_size()
        host.cache_id = -1
        return surface

    pg.display.set_mode = set_mode
    pg.display.toggle_fullscreen = lambda: 1

    def flip():
        if host.gl:
            host.gl_capture()
        _real["flip"]()
        host.on_flip()

    def update(*args, **kwargs):
        if host.gl:
            host.gl_capture()
        _real["update"](*args, **kwargs)
        host.on_flip()

    pg.display.flip = flip
    pg.display.update = update
    pg.key.get_pressed = lambda: PressedKeys(host.pressed)
    pg.key.get_mods = host.mods
    pg.key.get_focused = lambda: True

    def set_repeat(delay=0, interval=0):
        host.repeat = (int(delay), int(interval or delay))

    pg.key.set_repeat = set_repeat
    pg.key.get_repeat = lambda: host.repeat
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
            _real["set_pos"](host.mouse_pos)

    pg.mouse.set_pos = set_pos


def _seed(seed: int, lazy: bool) -> None:
    """Seed ``random``, and numpy's global generator unless :class:`FastImports` does it."""
    random.seed(seed)
    if lazy:
        return
    try:
        import numpy

        numpy.random.seed(seed)
    except ImportError:
        pass


class _LoaderWrapper:
    """A module loader that adds something around the real loader's ``exec_module``.

    Everything else is the real loader's, and the module gets the real loader back once it has
    run, so only the added step can be observed.
    """

    def __init__(self, loader) -> None:
        self._loader = loader

    def __getattr__(self, name: str):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader


class _SeedAfterExec(_LoaderWrapper):
    """numpy: seed its global generator right after its body ran, before anyone can draw."""

    def __init__(self, loader, seed: int) -> None:
        super().__init__(loader)
        self._seed = seed

    def exec_module(self, module) -> None:
        super().exec_module(module)
        module.random.seed(self._seed)


class _WithoutPkgResources(_LoaderWrapper):
    """pygame.pkgdata: run its body while ``pkg_resources`` cannot be imported."""

    def exec_module(self, module) -> None:
        hidden = "pkg_resources" not in sys.modules
        if hidden:
            sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # -> ImportError
        try:
            super().exec_module(module)
        finally:
            if hidden and "pkg_resources" in sys.modules and sys.modules["pkg_resources"] is None:
                del sys.modules["pkg_resources"]


def _top_level_names(source: bytes) -> set[str] | None:
    """Names a module body binds at top level, or ``None`` when that cannot be known."""
    import ast

    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                names.add(alias.asname or alias.name.split(".")[0])
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
                elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                    names.update(a.asname or a.name.split(".")[0] for a in sub.names)
                elif isinstance(sub, ast.Call) and getattr(sub.func, "id", "") in (
                    "globals",
                    "exec",
                    "setattr",
                ):
                    return None
    return names | {"__all__", "__doc__", "__annotations__"}


class _DeferredBody(_LoaderWrapper):
    """Run a module's body on first use of a name the body defines (PEP 562 ``__getattr__``).

    Unlike ``importlib.util.LazyLoader``, asking for a name the module does not define (a game
    sweeping ``sys.modules`` with ``hasattr``, as solarwolf does from a thread) answers
    ``AttributeError`` without running the body, exactly as the loaded module would, so a sweep
    never imports numpy behind the game's back. Falls back to running the body at once when
    the source cannot be read or binds names dynamically.
    """

    def exec_module(self, module) -> None:
        try:
            names = _top_level_names(self._loader.get_source(module.__name__).encode())
        except Exception:
            names = None
        if names is None:
            super().exec_module(module)
            return
        lock = threading.RLock()
        loader = self

        def __getattr__(name: str):
            with lock:
                if module.__dict__.get("__getattr__") is __getattr__:
                    if name not in names:
                        raise AttributeError(
                            f"module {module.__name__!r} has no attribute {name!r}"
                        )
                    del module.__dict__["__getattr__"]
                    try:
                        _LoaderWrapper.exec_module(loader, module)
                    except BaseException:
                        module.__dict__["__getattr__"] = __getattr__
                        raise
            return object.__getattribute__(module, name)

        module.__dict__["__getattr__"] = __getattr__


class FastImports:
    """Import hook that keeps a game's start from loading what it may never use.

    Old pygame (Debian's 2.1.2) imports numpy through ``surfarray``/``sndarray`` on
    ``import pygame`` (~0.1 s CPU), and its display module imports ``pygame.pkgdata`` to find
    its window icon, which imports ``pkg_resources`` (~0.1 s CPU) just to open a file next to
    pygame's own modules: together about half of a light game's launch CPU. So:

    * ``pygame.surfarray`` and ``pygame.sndarray`` run their bodies on first use of one of
      their names (:class:`_DeferredBody`), as pygame-ce defers them itself;
    * ``pygame.pkgdata`` runs with ``pkg_resources`` hidden, which is pygame's own fallback for
      installs without setuptools (open the file in pygame's directory); the game can still
      import ``pkg_resources`` itself;
    * numpy's global generator is seeded the moment numpy is imported, whoever imports it, so
      the game draws the same numbers as if numpy had been seeded at start.

    A row can turn this off with ``options.lazy_imports: false`` (then numpy is imported and
    seeded at start).
    """

    LAZY = ("pygame.surfarray", "pygame.sndarray")

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def find_spec(self, name: str, path=None, target=None):
        if name not in (*self.LAZY, "pygame.pkgdata", "numpy"):
            return None
        spec = None
        for finder in sys.meta_path:  # whoever would have found it without us
            if finder is not self and hasattr(finder, "find_spec"):
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        if name in self.LAZY:
            spec.loader = _DeferredBody(spec.loader)
        elif name == "pygame.pkgdata":
            spec.loader = _WithoutPkgResources(spec.loader)
        else:
            spec.loader = _SeedAfterExec(spec.loader, self.seed)
        return spec


def _run_entry(config: dict) -> None:
    entry = config["entry"]
    game_dir = config.get("game_dir", "/game")
    for extra in reversed(config.get("path") or []):
        sys.path.insert(0, os.path.join(game_dir, extra))
    args = list(config.get("args") or [])
    if ":" in entry and not entry.endswith(".py"):
        module_name, func_name = entry.split(":", 1)
        sys.argv = [module_name, *args]
        os.chdir(os.path.join(game_dir, config.get("cwd") or "."))
        module = importlib.import_module(module_name)
        host.namespace = module.__dict__
        func = getattr(module, func_name)
        if config.get("call") == "argv":
            func(sys.argv)
        else:
            func()
        return
    path = os.path.join(game_dir, entry)
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(path))
    os.chdir(os.path.join(game_dir, config["cwd"]) if config.get("cwd") else os.path.dirname(path))
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = __builtins__
    sys.modules["__main__"] = module
    host.namespace = module.__dict__
    with open(path, "rb") as fh:
        code = compile(fh.read(), path, "exec")
    exec(code, module.__dict__)


def _protocol_fd(fd: int) -> int:
    """A close-on-exec copy of ``fd`` at or above :data:`PROTOCOL_FD_FLOOR`.

    Close-on-exec: programs the game runs never inherit the protocol. A high number: a game that
    writes to a small descriptor it assumes is its own (a log it opened, a pipe it made) does not
    hit it. This hides nothing from game code that looks (``/proc/self/fd``); the harness bounds
    what it accepts instead. A low open-files limit moves the floor down with it.
    """
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    floor = PROTOCOL_FD_FLOOR
    if 0 <= soft < floor + 64:  # no limit reads as RLIM_INFINITY, -1
        floor = max(3, soft // 2)
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, floor)


def main() -> None:
    global host, pygame
    proto_in = os.fdopen(_protocol_fd(0), "rb")
    proto_out = os.fdopen(_protocol_fd(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)  # the game's prints go to the log, never into the protocol
    config = json.loads(proto_in.readline())
    os.environ.setdefault("SDL_VIDEODRIVER", "x11" if config.get("opengl") else "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    lazy = bool(config.get("lazy_imports", True))
    if lazy:
        sys.meta_path.insert(0, FastImports(int(config.get("seed", 0))))
    import pygame as _pygame

    pygame = _pygame
    host = Host(config, proto_in, proto_out)
    watchdog = threading.Thread(target=host.watch_for_stalls, name="playsuite-stalls", daemon=True)
    watchdog.start()
    _key_tables()
    _patch_time()
    _patch_pygame()
    _seed(int(config.get("seed", 0)), lazy)
    code, error = 0, None
    try:
        _run_entry(config)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code not in (None, 0) and not isinstance(exc.code, int):
            error = str(exc.code)
    except BaseException:
        code, error = 1, traceback.format_exc(limit=20)
        sys.stderr.write(error)
    frames = host.frames
    header = host.status("exit", len(frames))
    header.update(code=code, error=error, launch=not host.ready)
    host.send_slice_end(header, b"".join(frames))
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
