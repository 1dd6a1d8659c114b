"""In-sandbox host for pygame games: a paced virtual clock, frame capture, injected input.

Started as a script by :mod:`playsuite.runtimes.pygame_runtime` inside the sandbox, under the
game's interpreter (Debian's ``/usr/bin/python3`` or a per-game venv); the harness imports it only
to find its files. It may use only the standard library, pygame and (optionally) numpy. Its parts
(:data:`PARTS`) are bound beside it: ``pygame_host_patches`` (the clock, time and pygame patches),
``pygame_host_input`` (scheduled input), ``pygame_host_imports`` (import hooks),
``pygame_host_entry`` (starting the game's script or function) and ``screen_settle`` (when the
launching game's picture has settled: its first frame).

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
* A game that closes pygame (its Quit menu) gets no more input and its last frame is held; if
  it still runs when the slice ends, it is reported as exited (code 0), never as crashed.

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
import fcntl
import json
import os
import resource
import struct
import sys
import threading
import time as _time
import traceback
import types
from collections import deque

if __package__:  # imported from the package (the runtime finds the files, tests read constants)
    from playsuite.runtimes import (
        pygame_host_entry,
        pygame_host_imports,
        pygame_host_input,
        pygame_host_patches,
    )
    from playsuite.runtimes import screen_settle as settle
else:  # run as the sandbox's script: its parts lie beside it
    import pygame_host_entry
    import pygame_host_imports
    import pygame_host_input
    import pygame_host_patches
    import screen_settle as settle

FastImports = pygame_host_imports.FastImports
InputSchedule = pygame_host_input.InputSchedule
key_tables = pygame_host_input.key_tables

_REAL_MONOTONIC = _time.monotonic
_REAL_SLEEP = _time.sleep
NOWAIT_STEP = 1.0 / 30.0
PROBE_FILE = "<probe"  # probes are compiled as "<probe NAME>": not game frames
PROTOCOL_FD_FLOOR = 900  # the protocol pipes sit at or above this descriptor number
#: The host's own modules: the sandbox binds each beside this script, and probes skip their frames.
PARTS = (pygame_host_entry, pygame_host_imports, pygame_host_input, pygame_host_patches, settle)
HOST_FILES = frozenset([__file__, *(part.__file__ for part in PARTS)])


class Host(InputSchedule):
    """Virtual clock, input schedule and frame sampling; one instance per process.

    ``pg`` is the pygame module; ``real`` holds the pygame functions the patches replaced.
    """

    def __init__(self, config: dict, proto_in, proto_out, pg: types.ModuleType) -> None:
        self.config = config
        self.pg = pg
        self.real: dict = {}
        self.keys, self.unicode, self.modifiers = key_tables(pg)
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
        self.settle = settle.Settle.from_config(config)  # when the first frame is sent
        self.video_size: tuple[int, int] | None = None
        self.cache_id = -1
        self.cache: bytes | None = None
        self.gl = False
        self.pressed: set[int] = set()
        self.buttons = [False, False, False, False, False]
        self.mouse_pos = (0, 0)
        self.mouse_rel = [0, 0]
        self.cursor: tuple | None = None  # the game's last set_cursor arguments (patches)
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
            exit_now(0)  # the harness is gone: nothing left to play for
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
                exit_now(0)
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
            "pygame": self.pg,
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

    def now(self) -> float:
        """Game time as the game reads it (a read in a spin loop lets a little time pass)."""
        self.on_poll()
        return self.t

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
        if not self.ready and self.settle.due() is not None:
            candidates.append(self.settle.due())
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
                event = timer[2] if timer[2] is not None else self.pg.event.Event(etype)
                self.post(event)
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
        if not self.ready:
            self.check_ready()

    def end_slice(self) -> None:
        frames = self.frames
        self.frames = []
        if self.ready and not self.pg.display.get_init():
            self.closed(frames)
        header = self.status("frames", len(frames))
        self.send_slice_end(header, b"".join(frames))
        self.pause()

    def closed(self, frames: list[bytes]) -> None:
        """The game closed its display but still runs at the slice's end (a farewell wait):
        it has quit, so it ends here as if it had returned (exit code 0)."""
        sys.stderr.write("playsuite: the game closed its display; its run ends here\n")
        header = self.status("exit", len(frames))
        header.update(code=0, error=None, launch=False)
        self.send_slice_end(header, b"".join(frames))
        exit_now(0)

    # ------------------------------------------------------------------ frames

    def grab(self) -> bytes | None:
        if self.cache_id == self.flips and self.cache is not None:
            return self.cache
        if not self.pg.display.get_init():  # the game has quit: its last frame stays
            return self.cache
        surface = self.real["get_surface"]()
        if surface is None or self.gl:
            return self.cache
        self.cache = self.encode(surface)
        self.cache_id = self.flips
        return self.cache

    def encode(self, surface) -> bytes:
        if self.video_size is None:
            self.video_size = surface.get_size()
        if surface.get_size() != self.video_size:
            surface = self.pg.transform.scale(surface, self.video_size)
        to_bytes = getattr(self.pg.image, "tobytes", None) or self.pg.image.tostring
        return to_bytes(surface, "RGB")

    def gl_capture(self) -> None:
        import ctypes

        surface = self.real["get_surface"]()
        w, h = surface.get_size()
        gl = ctypes.CDLL("libGL.so.1")
        buf = ctypes.create_string_buffer(w * h * 3)
        gl.glPixelStorei(0x0D05, 1)  # GL_PACK_ALIGNMENT
        gl.glReadPixels(0, 0, w, h, 0x1907, 0x1401, buf)  # GL_RGB, GL_UNSIGNED_BYTE
        image = self.pg.image.frombuffer(buf.raw, (w, h), "RGB")
        self.cache = self.encode(self.pg.transform.flip(image, False, True))
        self.cache_id = self.flips + 1

    def on_flip(self) -> None:
        self.flips += 1
        self.seen()
        self.flips_since_wait += 1
        if not self.ready:
            frame = self.grab()
            if frame:
                self.settle.see(frame, self.t)
            if self.check_ready():
                return
        if self.flips_since_wait > self.nowait_frames:
            self.advance(NOWAIT_STEP, waited=False)

    def check_ready(self) -> bool:
        """(Launching.) Once the picture has settled, send it as the first frame and pause."""
        frame = self.grab() if self.settle.ready(self.t) else None
        if not frame:
            return False
        self.ready = True
        self.send(self.status("ready", 1), frame)
        self.pause()
        return True

    def on_poll(self) -> None:
        """A game spinning on the clock without waiting would hang: let a millisecond pass."""
        self.polls_since_wait += 1
        if self.polls_since_wait > 200:
            self.advance(0.001, waited=False)

    def launch_failed(self, reason: str) -> None:
        self.send({"type": "exit", "code": None, "error": reason, "launch": True})
        exit_now(3)

    # ------------------------------------------------------------------ waiting for events

    def wait_event(self, timeout_ms: int = 0):
        limit = self.t + timeout_ms / 1000.0 if timeout_ms > 0 else None
        while True:
            event = self.real["poll"]()
            if event.type != self.pg.NOEVENT:
                return event
            deadline = self.next_deadline()
            if limit is not None and (deadline is None or deadline > limit):
                self.advance(limit - self.t)
                return self.pg.event.Event(self.pg.NOEVENT)
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
        ours = code.co_filename in HOST_FILES or code.co_filename.startswith(PROBE_FILE)
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


def exit_now(code: int) -> None:
    """End the process without the game's clean-up, after writing out what it printed (the
    log would lose its buffered output). Not for the stall watchdog: the hung main thread may
    hold a stream's lock."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


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
    host = Host(config, proto_in, proto_out, _pygame)
    watchdog = threading.Thread(target=host.watch_for_stalls, name="playsuite-stalls", daemon=True)
    watchdog.start()
    pygame_host_patches.patch_time(host)
    pygame_host_patches.patch_pygame(host)
    pygame_host_imports.seed_generators(int(config.get("seed", 0)), lazy)
    code, error = 0, None
    try:
        pygame_host_entry.run_entry(config, host)
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
    exit_now(0)


if __name__ == "__main__":
    main()
