"""Native runtime: a Linux game binary (or any windowed program) in the sandbox, on Xvfb.

A native game cannot be put on a virtual clock from outside, so game time is wall time while the
game runs, and the game is *stopped* between slices: SIGSTOP on every process of its sandbox
freezes it completely (no pixel changes), SIGCONT lets it run for exactly the slice. A stopped
game would still see the jump in time on resume, so its clocks are faked with libfaketime
(``LD_PRELOAD``): before each SIGCONT the total time spent stopped is written as a negative
offset, and the game's wall and monotonic clocks continue where they stopped. The offset reaches
libfaketime through the clock guard (:mod:`.clock_guard`), preloaded in front of it, which keeps
that true for games with threads and for a stop that lands inside a clock call (libfaketime's own
offset file lets either make the clock jump by the hidden time).

The game runs in the bubblewrap (or Apptainer) sandbox with only its X socket bound; its window is
found by polling the display (by class, not PID: PIDs differ inside the sandbox's namespace),
focused, driven through XTEST and captured with mss (see :mod:`.xdisplay`). Closing sends SIGTERM
to the game's processes and SIGKILL after a grace period (some games ignore SIGTERM), then the
sandbox hunts down anything left in its PID namespace.

Row fields: ``entry`` is the program at its installed path (a Debian package's own launcher,
``/usr/games/supertux2``: the sandbox lays the game's packages over ``/usr``) or relative to
the game directory; ``args`` may name files as ``/game/...``. Optional ``options``: ``env``
(extra environment), ``cwd`` (relative to the game directory), ``window_class`` (regular
expression matched against WM_CLASS when a game opens several windows), ``ready_settle_s`` and
``ready_max_s`` (readiness, :mod:`.screen_settle`: the window is polled until its picture has
held still, so a splash or loading screen is not the first frame; in the game's own seconds:
wall seconds times ``clock_rate`` while it launches).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import re
import shutil
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

import numpy as np
from Xlib.error import XError

from playsuite.actions.canonical import Action
from playsuite.corpus import GameEntry
from playsuite.runtimes import procs
from playsuite.runtimes.acquire import installed_layers
from playsuite.runtimes.base import (
    GameExited,
    GameFailure,
    Observation,
    RunStatus,
    Runtime,
    RuntimeOptions,
    frames_per_slice,
    readiness,
)
from playsuite.runtimes.clock_guard import (
    STATE_ENV,
    ClockGuardUnavailable,
    ClockState,
    clock_guard_library,
)
from playsuite.runtimes.native_display import follow_window, release_server_grab
from playsuite.runtimes.screen_settle import Settle
from playsuite.runtimes.timeline import (
    InputEvent,
    KeysDown,
    frame_times,
    play_timeline,
    schedule,
)
from playsuite.runtimes.xdisplay import DisplayError, VirtualDisplay, Window, XClient
from playsuite.sandbox import (
    GAME_DIR,
    SCRATCH_DIR,
    Bind,
    SandboxedProcess,
    SandboxUnavailable,
    game_policy,
)

log = logging.getLogger(__name__)

FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
CLOCK_GUARD_FILE = "clock_guard.so"  # the guard's copy, in the scratch directory
CLOCK_STATE_FILE = "clock.state"  # the offsets the guard reads, in the scratch directory
MESA_CACHE_DIR = "/cache/mesa"  # where a worker's shared shader cache is bound
#: Gives the game a private D-Bus session bus that lives and dies with it (KDE games refuse to
#: start without one: "kf.dbusaddons: DBus session bus not found"). Debian's dbus-daemon.
DBUS_SESSION = "/usr/bin/dbus-run-session"
POLL_S = 0.02
TERM_GRACE_S = 1.5
#: Input starts this long into a slice: events that arrive the moment a game wakes from SIGSTOP
#: can be lost (SuperTux's menu misses them), so the game runs a few frames first.
INPUT_LEAD_S = 0.15
#: A sped-up game keeps its rate while at least this share of captured frames is new whenever
#: its picture moves at all (below it, it draws slower than the sped-up clock asks).
MIN_DELIVERED = 0.5


def _blank(frame: np.ndarray) -> bool:
    return bool((frame == frame[0, 0]).all())


class _ExitedBeforeWindow(GameFailure):
    """The game's process ended before it showed a window (its exit ``code``)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(RunStatus.LAUNCH_FAILED, message)
        self.code = code


class NativeRuntime(Runtime):
    """A native windowed game, stopped between slices (module docstring)."""

    def __init__(self, game: GameEntry, options: RuntimeOptions) -> None:
        super().__init__(game, options)
        self._own_display: VirtualDisplay | None = None
        self._x: XClient | None = None
        self._proc: SandboxedProcess | None = None
        self._window: Window | None = None
        self._log: IO[str] | None = None
        self._scratch = options.workdir / "sandbox"
        self._stopped_at: float | None = None  # monotonic time of the last SIGSTOP
        self._stopped_total = 0.0  # wall seconds the game has spent stopped
        self._clock: ClockState | None = None  # the offsets, for the clock guard
        self._running: list[int] = []  # the game's processes, as of the last resume
        self._t_game = 0.0
        self._pointer = (0, 0)
        self._keys_down = KeysDown()  # keys a live-mode hold left down between slices
        self.launch_s: float | None = None
        self.launch_phases: dict[str, float] = {}  # seconds from start(): window, first frame
        self.launch_restarts = 0  # 1 when the first start exited before a window (start())
        self._t_launch = 0.0
        self._before: set[int] = set()  # windows on the display before the game started
        self.window_changes = 0  # times the game replaced its window (an SDL 1.2 mode change)
        self.grab_releases = 0  # times a stopped game had to run on to release a server grab
        self.skipped_frames = 0  # video frames repeated because a capture fell behind
        self.last_slice_wall_s: float | None = None  # SIGCONT..SIGSTOP of the last slice
        # Game s per wall s (libfaketime's speed; row, else run): 1 for good if it cannot keep up.
        self.clock_rate = float(game.options.get("clock_rate") or options.clock_rate or 1.0)
        self.clock_fallback: str | None = None  # why the rate fell back to 1, if it did
        self.asked_clock_rate = self.clock_rate
        self._sped = self.clock_rate if self.clock_rate != 1.0 else None
        self._rate_base = 0.0  # fake-clock offset that keeps the game's time continuous
        self._spawned_at = 0.0  # monotonic time the game's processes were started

    # -- interface ----------------------------------------------------------------------------

    @property
    def screen_size(self) -> tuple[int, int]:
        if self._window is not None:
            return self._window.width, self._window.height
        return self.game.screen_size or (800, 600)

    def start(self) -> Observation:
        t0 = self._t_launch = time.perf_counter()
        try:
            display = self._display()
            self._x = XClient(display)
        except DisplayError as exc:
            raise GameFailure(RunStatus.LAUNCH_FAILED, str(exc)) from exc
        before = self._before = {w.id for w in self._x.windows()}
        self._launch(display)
        try:
            self._window = self._await_window(before)
        except _ExitedBeforeWindow as first:
            # Some games quit on their very first start, after setting up their profile in
            # HOME (a default configuration, a save folder) or on a race of their own, and start
            # on the second, as a player who starts them again sees. One more start, in the same
            # home; a second exit is the game's failure.
            self._end_process()
            self.launch_restarts = 1
            log.info("%s: %s; starting it again", self.game.id, first)
            self._launch(display, note=f"playsuite: the first start exited ({first.code})")
            self._window = self._await_window(before)
        self._stop()
        self._t_game = 0.0
        w, h = self.screen_size
        self._pointer = (w // 2, h // 2)
        self.launch_s = time.perf_counter() - t0
        return self.observe()

    def observe(self) -> Observation:
        self._follow_window()
        return Observation(frame=self._capture(), t_game=self._t_game, probes={})

    def act(self, actions: list[Action], seconds: float) -> list[np.ndarray]:
        self._check_alive()
        window = self._follow_window()
        self._x.focus(window)
        lead = min(INPUT_LEAD_S, seconds / 2)
        planned = schedule(actions, seconds, self._keys_down)
        events = [replace(e, t=min(e.t + lead, seconds)) for e in planned]
        captures = frame_times(seconds, frames_per_slice(seconds, self.video_fps))
        clock = {"start": 0.0}
        rate = self.clock_rate
        skipped_before = self.skipped_frames
        last = len(captures) - 1
        count = {"n": 0}

        def advance_to(t: float) -> None:
            if self._stopped_at is not None:
                self._resume()
                clock["start"] = time.monotonic()
            delay = clock["start"] + t / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)

        grabbed: list[np.ndarray] = []

        def capture() -> np.ndarray:
            index = count["n"]
            count["n"] += 1
            if index == last:
                self._stop()  # the slice's last frame is the paused screen
                with contextlib.suppress(GameFailure):  # an ended game: said after the slice
                    self._follow_window()  # of the window the game shows now
            elif grabbed and time.monotonic() > clock["start"] + captures[index + 1] / rate:
                # Behind schedule (busy X server): repeat the last frame, do not run past the slice.
                self.skipped_frames += 1
                return grabbed[-1]
            try:
                grabbed.append(self._capture())
            except DisplayError:  # replaced while it ran: capture the game's new window
                self._follow_window()
                grabbed.append(self._capture())
            return grabbed[-1]

        wall0 = time.monotonic()
        frames: list[np.ndarray] = []
        try:
            play_timeline(events, captures, advance_to, self._apply, capture, frames)
        except DisplayError as exc:
            self._stop()
            message = f"lost the game's window: {exc}"
            raise GameFailure(RunStatus.CRASHED, message, frames) from exc
        finally:
            if self._stopped_at is None and self._proc is not None:
                self._stop()
        self._t_game += seconds
        self.last_slice_wall_s = (self._stopped_at or time.monotonic()) - clock["start"]
        self._keep_up(frames, seconds, self.skipped_frames - skipped_before)
        try:
            self._check_alive()
        except GameFailure as exc:
            exc.frames = frames  # the slice up to the end
            raise
        overrun = time.monotonic() - wall0
        if overrun > self.options.slice_timeout_s:
            raise GameFailure(
                RunStatus.TIMEOUT,
                f"a {seconds:g} s slice took {overrun:.1f} s of wall time",
                frames,
            )
        return frames

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            pids = procs.tree(proc.pid)
            procs.signal_all(pids, signal.SIGCONT)
            procs.signal_all(pids, signal.SIGTERM)
            deadline = time.monotonic() + TERM_GRACE_S
            while time.monotonic() < deadline and any(procs.alive(p) for p in pids):
                time.sleep(POLL_S)
            proc.kill()  # SIGKILL to whatever is left, reap, hunt the PID namespace
            if proc.leftovers:
                log.warning("%s: killed escaped processes %s", self.game.id, proc.leftovers)
        if self._x is not None:
            self._release_keys(self._x)
            self._x.close()
            self._x = None
        if self._own_display is not None:
            self._own_display.stop()
            self._own_display = None
        if self._log is not None:
            self._log.close()
            self._log = None

    # -- launch -------------------------------------------------------------------------------

    def _display(self) -> str:
        if self.options.display:
            return self.options.display
        size = self.game.screen_size or (800, 600)
        self._own_display = VirtualDisplay(size=(max(size[0], 1024), max(size[1], 768))).start()
        return self._own_display.name

    def _end_process(self) -> None:
        """Reap a game that exited at launch (and anything it left) and close its log."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
        if self._log is not None:
            self._log.close()
            self._log = None

    def _launch(self, display: str, note: str = "") -> None:
        opts = self.game.options or {}
        game_dir = Path(self.options.game_dir).resolve()
        sandboxed = self.options.sandbox != "none"
        if not game_dir.is_dir():
            raise GameFailure(RunStatus.LAUNCH_FAILED, f"game directory missing: {game_dir}")

        def inside(text: str) -> str:
            """A path as the game sees it: /game/... in the sandbox, the host path without."""
            if sandboxed or not (text == GAME_DIR or text.startswith(GAME_DIR + "/")):
                return text
            return str(game_dir) + text[len(GAME_DIR) :]

        entry = self.game.entry
        program = entry if entry.startswith("/") else f"{GAME_DIR}/{entry}"
        if not (game_dir / entry).exists() and not entry.startswith("/"):
            raise GameFailure(RunStatus.LAUNCH_FAILED, f"entry not found: {game_dir / entry}")
        argv = [inside(program), *(inside(a) for a in self.game.args)]
        if self.options.sandbox != "apptainer" and Path(DBUS_SESSION).exists():
            argv = [DBUS_SESSION, "--", *argv]  # the host's /usr is the sandbox's base

        self._scratch.mkdir(parents=True, exist_ok=True)
        try:  # our tool, not the game: a failure here is replayed on a rerun
            guard = clock_guard_library()
        except ClockGuardUnavailable as exc:
            raise SandboxUnavailable(str(exc)) from exc
        shutil.copyfile(guard, self._scratch / CLOCK_GUARD_FILE)
        no_stops = self._offset_spec(0.0)
        self._clock = ClockState(self._scratch / CLOCK_STATE_FILE, no_stops)
        scratch_in = SCRATCH_DIR if sandboxed else str(self._scratch)
        env = {
            "DISPLAY": display,
            "LD_PRELOAD": f"{scratch_in}/{CLOCK_GUARD_FILE} {FAKETIME_LIB}",
            STATE_ENV: f"{scratch_in}/{CLOCK_STATE_FILE}",
            "FAKETIME": no_stops,  # replaced by the guard at each resume
            "FAKETIME_NO_CACHE": "1",
            "FAKETIME_DISABLE_SHM": "1",
            "LP_NUM_THREADS": "1",
            "SDL_AUDIODRIVER": "dummy",
            "ALSOFT_DRIVERS": "null",
            **{str(k): inside(str(v)) for k, v in (opts.get("env") or {}).items()},
        }
        binds: tuple[Bind, ...] = ()
        mesa_cache = self.options.mesa_cache
        if mesa_cache:
            Path(mesa_cache).mkdir(parents=True, exist_ok=True)
            binds = (Bind(Path(mesa_cache), MESA_CACHE_DIR, writable=True),)
            env["MESA_SHADER_CACHE_DIR"] = MESA_CACHE_DIR if sandboxed else str(mesa_cache)
        else:  # a per-run cache (the sandbox's default place): slower starts, still writable
            (self._scratch / "home" / ".cache" / "mesa").mkdir(parents=True, exist_ok=True)
            if not sandboxed:
                env["MESA_SHADER_CACHE_DIR"] = str(self._scratch / "home" / ".cache" / "mesa")
        cwd = opts.get("cwd")
        policy = game_policy(
            self._scratch,
            game_dir,
            env=env,
            x11_display=display,
            extra_binds=binds,
            cwd=f"{GAME_DIR}/{cwd}" if cwd else None,
            usr_layers=installed_layers(game_dir) if sandboxed else (),
        )
        self._log = open(self.options.workdir / "game.log", "a", encoding="utf-8")  # noqa: SIM115
        if note:
            self._log.write(f"{note}\n")
        self._log.write(f"$ {' '.join(argv)}\n")
        self._log.flush()
        try:
            self._spawned_at = time.monotonic()
            self._proc = SandboxedProcess(
                policy,
                argv,
                backend=self.options.sandbox,
                image=self.options.apptainer_image,
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=subprocess.STDOUT,
            )
        except (OSError, ValueError, RuntimeError) as exc:
            # Our tool or our policy failed, not the game: the episode is replayed on a rerun.
            raise SandboxUnavailable(f"cannot start the sandbox: {exc}") from exc

    def _await_window(self, before: set[int]) -> Window:
        assert self._x is not None and self._proc is not None
        opts = self.game.options or {}
        pattern = re.compile(str(opts.get("window_class", "")), re.I)
        settle_s, max_s = readiness(self.game)
        watches: dict[int, Settle] = {}  # window id -> its frames so far
        shown: Window | None = None  # the last window seen with a non-blank frame
        deadline = time.monotonic() + self.options.launch_timeout_s
        while True:
            code = self._proc.poll()
            if code is not None:
                raise _ExitedBeforeWindow(
                    code,
                    f"the game exited with code {code} before showing a window; "
                    f"log: {self._log_tail()}",
                )
            for window in self._x.windows():
                if window.id in before or not pattern.search(" ".join(window.wm_class)):
                    continue
                self.launch_phases.setdefault("window_s", time.perf_counter() - self._t_launch)
                try:
                    window = self._x.place_on_screen(window)
                    # Focus as soon as the window exists: SDL takes keys only a while after.
                    if self._x.focused() != window.id:
                        self._x.focus(window)
                        self._x.prime_keyboard()
                    frame = self._x.capture(window)
                except (DisplayError, XError):
                    continue
                now = time.perf_counter() - self._t_launch
                game_now = now * self.clock_rate  # the game's clock runs at its rate from launch
                settle = watches.setdefault(window.id, Settle(settle_s, max_s))
                settle.see(frame.tobytes(), game_now)
                if not _blank(frame):
                    shown = window
                    self.launch_phases.setdefault("first_frame_s", now)
                    if settle.ready(game_now):
                        return window
            if time.monotonic() > deadline:
                if shown is not None:  # drawn but still changing: the timeout bounds the wait
                    return shown
                raise GameFailure(
                    RunStatus.LAUNCH_FAILED,
                    f"no non-blank window after {self.options.launch_timeout_s:g} s; "
                    f"log: {self._log_tail()}",
                )
            time.sleep(POLL_S)

    # -- the clock ----------------------------------------------------------------------------

    def _offset_spec(self, stopped_s: float) -> str:
        """libfaketime's setting that hides ``stopped_s`` seconds of stops.

        At speed ``r`` libfaketime shows a process ``start + offset + r * (now - start)``
        (``start``: when the process loaded it), so hiding the stops takes an offset of
        ``-r * stopped``; ``_rate_base`` keeps the clock continuous across a change of rate.
        """
        rate = self.clock_rate
        offset = self._rate_base - rate * stopped_s
        # Once sped up, the rate is always written: libfaketime keeps the last one it read.
        return f"{offset:+.6f}" if self._sped is None else f"{offset:+.6f} x{rate:g}"

    def _keep_up(self, frames: list[np.ndarray], seconds: float, skipped: int) -> None:
        """Fall back to real time, for good, when a sped-up game cannot keep up.

        A game keeps up when we could capture every frame on schedule and it drew a new
        picture for at least ``MIN_DELIVERED`` of them (a game on software OpenGL that renders
        slower than the sped-up clock asks shows the same picture again and again).
        """
        if self.clock_rate == 1.0 or len(frames) < 2:
            return
        new = sum(not np.array_equal(a, b) for a, b in itertools.pairwise(frames))
        delivered = new / (len(frames) - 1)
        # A still picture (a paused menu) says nothing about speed: only motion is judged.
        if skipped == 0 and (new == 0 or delivered >= MIN_DELIVERED):
            return
        self.clock_fallback = (
            f"at {self.clock_rate:g}x: {skipped} frames captured late, "
            f"{delivered:.0%} of frames new, in a {seconds:g} s slice"
        )
        log.info("%s: clock back to 1x (%s)", self.game.id, self.clock_fallback)
        # The game has seen base + r * (time it ran); from now on it sees base' + (time it ran),
        # the same value at the switch (it is stopped here): base' = base + (r - 1) * ran.
        ran = (self._stopped_at or time.monotonic()) - self._spawned_at - self._stopped_total
        self._rate_base += (self.clock_rate - 1.0) * ran
        self.clock_rate = 1.0

    def _pids(self) -> list[int]:
        return procs.tree(self._proc.pid) if self._proc is not None else []

    def _stop(self) -> None:
        if self._stopped_at is None:
            self._halt()
            if self._x is not None:  # a game stopped inside a server grab runs on until it ends
                self.grab_releases += release_server_grab(self._x, self._resume, self._halt)

    def _halt(self) -> None:
        # Stop the processes known at resume at once (/proc is slow on a busy node), then new ones.
        procs.signal_all(self._running, signal.SIGSTOP)
        started = [p for p in self._pids() if p not in self._running]
        procs.signal_all(started, signal.SIGSTOP)
        # The stop counts from when every thread has stopped: hiding more than the game was
        # stopped would turn its clock back (SuperTux asserts on that).
        procs.await_stopped([*self._running, *started])
        self._stopped_at = time.monotonic()

    def _resume(self) -> None:
        if self._stopped_at is not None:
            self._running = self._pids()  # nothing forks while stopped; scan before the clock
            self._stopped_total += time.monotonic() - self._stopped_at
            if self._clock is not None:
                self._clock.write(self._offset_spec(self._stopped_total))
            self._stopped_at = None
            procs.signal_all(self._running, signal.SIGCONT)

    # -- input and frames ---------------------------------------------------------------------

    def _release_keys(self, x: XClient) -> None:
        """Let go of the keys a live-mode hold left down: the X server outlives the game (a
        worker's display is shared by the games it plays), and the next game must not start
        with a key held."""
        keys, self._keys_down = self._keys_down.keys, KeysDown()
        for key in reversed(keys):
            try:
                x.key(key, False)
            except Exception as exc:  # a display already gone holds no key: closing goes on
                log.debug("releasing %s at close: %s", key, exc)

    def _apply(self, event: InputEvent) -> None:
        x = self._x
        assert x is not None and self._window is not None
        win = self._window
        if event.kind == "key_down":
            x.key(event.key, True)
        elif event.kind == "key_up":
            x.key(event.key, False)
        elif event.kind in ("move", "move_rel"):
            if event.kind == "move":
                px, py = event.x, event.y
            else:
                px, py = self._pointer[0] + event.x, self._pointer[1] + event.y
            self._pointer = (min(max(px, 0), win.width - 1), min(max(py, 0), win.height - 1))
            x.move(win.x + self._pointer[0], win.y + self._pointer[1])
        elif event.kind == "button_down":
            x.button(event.button, True)
        elif event.kind == "button_up":
            x.button(event.button, False)
        elif event.kind == "wheel":
            button = 5 if event.y > 0 else 4
            for _ in range(abs(event.y)):
                x.button(button, True)
                x.button(button, False)

    def _follow_window(self) -> Window:
        self._check_alive()  # a game that exited has no window: say how it ended
        assert self._x is not None and self._window is not None
        pattern = str((self.game.options or {}).get("window_class", ""))
        window = follow_window(self._x, self._window, self._before, pattern)
        if window.id != self._window.id:
            self.window_changes += 1
            window = self._x.place_on_screen(window)
        self._window = window
        return window

    def _capture(self) -> np.ndarray:
        assert self._x is not None and self._window is not None
        return self._x.capture(self._window)

    def _check_alive(self) -> None:
        if self._proc is None:
            raise GameFailure(RunStatus.CRASHED, "the game is not running")
        code = self._proc.poll()
        if code == 0:  # a Quit menu entry: the episode just ends
            raise GameExited("the game quit by itself")
        if code is not None:
            raise GameFailure(
                RunStatus.CRASHED, f"the game exited with code {code}; log: {self._log_tail()}"
            )

    def _log_tail(self, chars: int = 600) -> str:
        path = self.options.workdir / "game.log"
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return text[-chars:].strip().replace("\n", " | ")

    def probes(self) -> dict[str, Any]:
        return {}
