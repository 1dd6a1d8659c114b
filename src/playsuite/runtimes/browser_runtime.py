"""Browser runtime: HTML5 games in Debian's Chromium, driven by Playwright, on a frozen page clock.

Game time is the page clock (Playwright's clock emulation: Date, timers, requestAnimationFrame and
performance.now). It is installed before navigation and paused; only ``run_for`` moves it, so the
game stands still while the model thinks and every slice advances exactly its milliseconds. What
the page clock does not cover is handled here: CSS/Web animations are stopped through CDP
(``Animation.setPlaybackRate 0``) and captured with finite ones shown finished; ``Math.random``
is seeded by an init script; <audio>/<video> elements play on a virtual playhead in game time
(``browser_media_clock.js``: a game waiting for its tune's "ended" would otherwise move on in
wall time), and WebAudio's ``currentTime`` and its sources' ``ended`` follow game time
(``browser_webaudio_clock.js``); games whose loop runs in a Web Worker (the Construct 3 runtime)
are refused with a recorded reason, because their time cannot be frozen.

Game files are served from the game's directory under a fixed fake origin through request
routing, so games that fetch their own assets work as over HTTP, and every other request (any
host on the network) is aborted. One Chromium per worker (:class:`WorkerBrowser`) is reused across
games; each game gets a fresh browser context, so no cookies or storage leak between games.
"""

from __future__ import annotations

import io
import logging
import re
import signal
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import numpy as np
from PIL import Image

from playsuite.actions.canonical import Action
from playsuite.corpus import GameEntry
from playsuite.runtimes import procs
from playsuite.runtimes.base import (
    GameFailure,
    Observation,
    RunStatus,
    Runtime,
    RuntimeOptions,
    frames_per_slice,
    readiness,
)
from playsuite.runtimes.browser_worker import CHROMIUM, CHROMIUM_ARGS, WorkerBrowser
from playsuite.runtimes.screen_settle import Settle
from playsuite.runtimes.timeline import (
    InputEvent,
    KeysDown,
    frame_times,
    play_timeline,
    schedule,
)

log = logging.getLogger(__name__)

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "BrowserRuntime", "WorkerBrowser", "playwright_key"]

ORIGIN = "http://game.playsuite.invalid"  # .invalid never resolves (RFC 2606)
DEFAULT_SCREEN = (1280, 720)
CLOCK_START_S = 1_700_000_000  # fixed epoch for Date.now(): runs are repeatable
#: The clock runs from its install until it is paused this much later, before any document
#: exists. Playwright cannot pause in the past: 1 s was too little once for a Chromium starved
#: on a loaded node, so the pause comes later (still a fixed time: runs stay repeatable).
CLOCK_PAUSE_AFTER_S = 30
READY_STEP_MS = 50  # readiness is polled in this much game time
READY_MIN_MS = 200  # let rAF loops draw a few frames before the first screenshot counts
SETTLE_STEP_MS = 100  # once the page shows something, it is looked at this often (game time)
WHEEL_PIXELS_PER_NOTCH = 100
INIT_SCRIPT = Path(__file__).with_name("browser_init.js")
#: Put what the page clock alone leaves in wall time on game time: <audio>/<video> playback and
#: WebAudio's timeline.
CLOCK_SCRIPTS = tuple(
    Path(__file__).with_name(name)
    for name in ("browser_media_clock.js", "browser_webaudio_clock.js")
)


#: Worker scripts that carry a game loop (Construct 3's worker mode); the page clock cannot
#: freeze them, so such games are refused at launch.
LOOP_WORKER_PATTERN = re.compile(r"(c3runtime|workermain|dispatchworker|jobworker)", re.I)

#: Canonical key name -> Playwright key (KeyboardEvent.code-style names give both key and code).
_NAMED = {
    "space": "Space",
    "enter": "Enter",
    "escape": "Escape",
    "tab": "Tab",
    "backspace": "Backspace",
    "delete": "Delete",
    "insert": "Insert",
    "home": "Home",
    "end": "End",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "shift": "Shift",
    "ctrl": "Control",
    "alt": "Alt",
    "meta": "Meta",
    "capslock": "CapsLock",
    "minus": "Minus",
    "equal": "Equal",
    "comma": "Comma",
    "period": "Period",
    "slash": "Slash",
    "backslash": "Backslash",
    "semicolon": "Semicolon",
    "apostrophe": "Quote",
    "grave": "Backquote",
    "bracketleft": "BracketLeft",
    "bracketright": "BracketRight",
}


def playwright_key(name: str) -> str:
    """Playwright's name for a canonical key (``a`` -> ``KeyA``, ``up`` -> ``ArrowUp``)."""
    if len(name) == 1 and name.isalpha():
        return f"Key{name.upper()}"
    if len(name) == 1 and name.isdigit():
        return f"Digit{name}"
    if re.fullmatch(r"f([1-9]|1[0-2])", name):
        return name.upper()
    return _NAMED[name]


def _decode_png(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _blank(frame: np.ndarray) -> bool:
    """True when every pixel has the same colour (nothing rendered yet)."""
    return bool((frame == frame[0, 0]).all())


class BrowserRuntime(Runtime):
    """A browser game on a frozen page clock (module docstring).

    ``GameEntry.entry`` is the page relative to the game directory (``index.html``,
    ``package/lib/index.html``); ``screen`` sets the viewport (default 1280x720). Optional
    ``options``: ``ready`` (a JavaScript expression that is truthy once the game can be played),
    ``ready_min_ms`` (game time to run before the first frame counts), ``ready_settle_s`` /
    ``ready_max_s`` (the first frame is the picture once it has settled, :mod:`.screen_settle`),
    ``allow_workers`` (true when the game's workers do not run its loop). Probes are JavaScript
    expressions.
    """

    def __init__(self, game: GameEntry, options: RuntimeOptions) -> None:
        super().__init__(game, options)
        self._size = game.screen_size or DEFAULT_SCREEN
        shared = options.browser
        self._own_browser = shared is None
        self._browser: WorkerBrowser = (
            shared
            if shared is not None
            else WorkerBrowser(
                sandbox=options.sandbox,
                image=options.apptainer_image,
                scratch=options.workdir / "browser-sandbox",
            )
        )
        self._context: Any = None
        self._page: Any = None
        self._ms = 0  # game time since readiness, in the page clock's milliseconds
        self._pointer = (self._size[0] // 2, self._size[1] // 2)
        self._pressed_buttons: set[str] = set()
        self._keys_down = KeysDown()  # keys a live-mode hold left down between slices
        self._crashed = False
        self._hung = False
        self._loop_workers: list[str] = []
        self._blocked: list[str] = []
        self._log = None
        self.launch_s: float | None = None

    # -- interface ----------------------------------------------------------------------------

    @property
    def screen_size(self) -> tuple[int, int]:
        return self._size

    def start(self) -> Observation:
        t0 = time.perf_counter()
        opts = self.game.options or {}
        root = Path(self.options.game_dir).resolve()
        page_path = (root / self.game.entry.split("?")[0]).resolve()
        if not page_path.is_file():
            raise GameFailure(RunStatus.LAUNCH_FAILED, f"entry page not found: {page_path}")
        self.options.workdir.mkdir(parents=True, exist_ok=True)
        log_path = self.options.workdir / "browser.log"
        self._log = open(log_path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        deadline = time.monotonic() + self.options.launch_timeout_s
        try:
            self._open_page(root)
            page = self._page
            page.goto(
                f"{ORIGIN}/{self.game.entry.lstrip('/')}",
                wait_until="load",
                timeout=self.options.launch_timeout_s * 1000,
            )
            frame = self._await_ready(
                str(opts.get("ready", "")),
                int(opts.get("ready_min_ms", READY_MIN_MS)),
                bool(opts.get("allow_workers", False)),
                deadline,
            )
        except GameFailure:
            raise
        except Exception as exc:
            raise GameFailure(RunStatus.LAUNCH_FAILED, f"browser launch failed: {exc}") from exc
        self._ms = 0
        self.launch_s = time.perf_counter() - t0
        return Observation(frame=frame, t_game=0.0, probes=self.probes())

    def observe(self) -> Observation:
        self._check_alive()
        frame = self._capture()
        return Observation(frame=frame, t_game=self._ms / 1000, probes=self.probes())

    def act(self, actions: list[Action], seconds: float) -> list[np.ndarray]:
        self._check_alive()
        events = schedule(actions, seconds, self._keys_down)
        captures = frame_times(seconds, frames_per_slice(seconds, self.video_fps))
        base_ms = self._ms
        watchdog = threading.Timer(self.options.slice_timeout_s, self._on_hang)
        watchdog.daemon = True
        watchdog.start()
        frames: list[np.ndarray] = []  # what was captured before a failure is kept as evidence
        try:
            return play_timeline(
                events,
                captures,
                advance_to=lambda t: self._run_to(base_ms + round(t * 1000)),
                apply=self._apply,
                capture=self._capture,
                frames=frames,
            )
        except GameFailure as failure:
            failure.frames = failure.frames or frames
            raise
        except Exception as exc:
            if self._hung:
                raise GameFailure(
                    RunStatus.TIMEOUT,
                    f"a {seconds:g} s slice took more than {self.options.slice_timeout_s:g} s",
                    frames,
                ) from exc
            message = f"page failed during a slice: {exc}"
            raise GameFailure(RunStatus.CRASHED, message, frames) from exc
        finally:
            watchdog.cancel()

    def probes(self) -> dict[str, Any]:
        if self._page is None or not self.game.probes:
            return {}
        out: dict[str, Any] = {}
        for name, expr in self.game.probes.items():
            try:
                out[name] = self._page.evaluate(f"() => ({expr})")
            except Exception as exc:  # a probe that fails is missing, not fatal
                log.debug("probe %s failed: %s", name, exc)
                out[name] = None
        return out

    def close(self) -> None:
        context, self._context, self._page = self._context, None, None
        if context is not None:
            try:
                context.close()
            except Exception as exc:
                log.debug("context.close: %s", exc)
        if self._own_browser:
            self._browser.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    # -- details ------------------------------------------------------------------------------

    def _open_page(self, root: Path) -> None:
        width, height = self._size
        context = self._browser.new_context(width, height)
        self._context = context
        context.route("**/*", lambda route: self._serve(route, root))
        context.route_web_socket("**/*", lambda ws: ws.close())
        script = INIT_SCRIPT.read_text().replace("__PLAYSUITE_SEED__", str(int(self.options.seed)))
        context.add_init_script(script)
        for clock_script in CLOCK_SCRIPTS:
            context.add_init_script(clock_script.read_text())
        page = context.new_page()
        self._page = page
        page.on("crash", lambda _page: self._mark_crashed())
        page.on("worker", self._on_worker)
        page.on("console", lambda msg: self._write_log(f"console.{msg.type}: {msg.text}"))
        page.on("pageerror", lambda err: self._write_log(f"pageerror: {err}"))
        # Clock before the first document exists, paused a fixed time later: no "pause now".
        page.clock.install(time=CLOCK_START_S)
        page.clock.pause_at(CLOCK_START_S + CLOCK_PAUSE_AFTER_S)
        cdp = context.new_cdp_session(page)
        cdp.send("Animation.enable")
        cdp.send("Animation.setPlaybackRate", {"playbackRate": 0})

    def _serve(self, route: Any, root: Path) -> None:
        url: str = route.request.url
        if not url.startswith(ORIGIN + "/"):
            self._blocked.append(url)
            self._write_log(f"blocked: {url}")
            route.abort("blockedbyclient")
            return
        rel = url[len(ORIGIN) + 1 :].split("?")[0].split("#")[0]
        path = (root / unquote(rel)).resolve()
        if path.is_file() and path.is_relative_to(root):
            route.fulfill(path=str(path))
        else:
            route.fulfill(status=404, body="not found")

    def _await_ready(
        self, ready: str, min_ms: int, allow_workers: bool, deadline: float
    ) -> np.ndarray:
        """Run game time in small steps until the game is ready and its picture has settled
        (:mod:`.screen_settle`, in page-clock time); its first frame."""
        page = self._page
        waited = 0
        settle = Settle(*readiness(self.game))
        while True:
            frame: np.ndarray | None = None
            if self._loop_workers and not allow_workers:
                raise GameFailure(
                    RunStatus.LAUNCH_FAILED,
                    "excluded: the game runs its loop in a Web Worker "
                    f"({', '.join(self._loop_workers)}), which the page clock cannot freeze",
                )
            step = READY_STEP_MS
            if waited >= min_ms and (not ready or page.evaluate(f"() => !!({ready})")):
                frame = self._capture()
                settle.see(frame.tobytes(), waited / 1000)
                if not _blank(frame):
                    if settle.ready(waited / 1000):
                        return frame
                    step = SETTLE_STEP_MS
            if time.monotonic() > deadline:
                if frame is not None and not _blank(frame):
                    return frame  # drawn but still changing: the timeout bounds the wait
                raise GameFailure(
                    RunStatus.LAUNCH_FAILED,
                    f"not ready after {waited / 1000:g} s of game time "
                    f"({self.options.launch_timeout_s:g} s wall)"
                    + (f"; condition {ready!r}" if ready else "; screen stayed blank"),
                )
            self._run_to(self._ms + step)
            waited += step

    def _run_to(self, target_ms: int) -> None:
        """Advance the page clock to ``target_ms`` (every timer and animation frame runs)."""
        delta = target_ms - self._ms
        if delta <= 0:
            return
        self._page.clock.run_for(delta)
        self._ms = target_ms

    def _apply(self, event: InputEvent) -> None:
        page = self._page
        if event.kind == "key_down":
            page.keyboard.down(playwright_key(event.key))
        elif event.kind == "key_up":
            page.keyboard.up(playwright_key(event.key))
        elif event.kind in ("move", "move_rel"):
            w, h = self._size
            x, y = (
                (event.x, event.y)
                if event.kind == "move"
                else (self._pointer[0] + event.x, self._pointer[1] + event.y)
            )
            self._pointer = (min(max(x, 0), w - 1), min(max(y, 0), h - 1))
            page.mouse.move(*self._pointer)
        elif event.kind == "button_down":
            page.mouse.down(button=event.button)
        elif event.kind == "button_up":
            page.mouse.up(button=event.button)
        elif event.kind == "wheel":
            page.mouse.wheel(0, event.y * WHEEL_PIXELS_PER_NOTCH)

    def _capture(self) -> np.ndarray:
        # CSS/Web animations do not follow the page clock: their timeline is stopped through CDP
        # (nothing moves in wall time) and the screenshot shows finite ones finished and
        # infinite ones at their start, the same picture whenever it is taken.
        shot = self._page.screenshot(type="png", animations="disabled", timeout=30_000)
        return _decode_png(shot)

    def _check_alive(self) -> None:
        if self._page is None:
            raise GameFailure(RunStatus.CRASHED, "the game is not running (start() not called)")
        if self._crashed:
            raise GameFailure(RunStatus.CRASHED, "the page crashed")

    def _mark_crashed(self) -> None:
        self._crashed = True
        self._write_log("page crashed")

    def _on_hang(self) -> None:
        """Watchdog (another thread): kill the renderer so the blocked call returns."""
        self._hung = True
        self._write_log("slice timeout: killing the renderer")
        procs.signal_all(self._browser.renderer_pids(), signal.SIGKILL)

    def _on_worker(self, worker: Any) -> None:
        self._write_log(f"worker: {worker.url}")
        if LOOP_WORKER_PATTERN.search(worker.url):
            self._loop_workers.append(worker.url)

    def _write_log(self, line: str) -> None:
        if self._log is not None and not self._log.closed:
            self._log.write(line + "\n")
