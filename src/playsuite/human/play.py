"""``playsuite human play``: a person plays a corpus game from a local page, recorded as an episode.

The person is a policy (:class:`~playsuite.agents.human.HumanPolicy`) whose answers come from
the page through a :class:`PlaySession`, and the episode is played by the models' own loop
(:func:`~playsuite.harness.episode.run_episode`): the same runtime and sandbox on the same
per-worker resources, the same seed for the game and condition, the same recorder. The result is
an ordinary episode directory (``episode.mp4``, ``trace.jsonl``, ``meta.json`` with
``agent: human``, the pseudonymous ``player`` and the ``play_mode``), so judging, scoring, the
inspector and the tables take it as they take a model's.

Two modes:

* **paced**: what a model gets. The game is frozen while the page shows the step's frame (the
  one a model would get) and the prompt a model would read; the person's keys, clicks and wheel
  turns become canonical actions (a short press a key, a long one a hold, keys pressed together
  a chord), sent as one step's answer; the step then plays ``1/hz`` seconds of game time.
* **live**: real time. Slices of ``1/hz`` seconds of game time follow each other at the pace of
  the wall clock, the page shows each slice's last frame, and every key and mouse event is
  applied at the start of the next slice (playsuite.human.events) and kept in the trace with
  its wall-clock and game-time stamps.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from playsuite.actions import Action, Hold, Invalid, Wait, action_from_dict, clamp_to_screen
from playsuite.agents.human import HumanAnswer, HumanPolicy, human_preset
from playsuite.agents.policy import StepRequest, StopEpisode
from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, run_episode
from playsuite.human.events import EventError, LiveInput, parse_event
from playsuite.human.web import PageServer, Reply, Request, page
from playsuite.records.episode import EpisodeMeta
from playsuite.runtimes.base import RuntimeOptions

MODES = ("paced", "live")
#: How long a page may leave a paced step unanswered before the wait is re-checked.
POLL_S = 0.5


class PlayError(ValueError):
    """An answer from the page that cannot be played (the page is told why)."""


def encode_frame(frame: np.ndarray, fmt: str) -> bytes:
    """``frame`` as PNG (paced: the pixels a model gets) or JPEG (live: fast to send)."""
    from PIL import Image

    buf = io.BytesIO()
    image = Image.fromarray(frame)
    if fmt == "png":
        image.save(buf, "PNG", compress_level=1)
    else:
        image.save(buf, "JPEG", quality=85)
    return buf.getvalue()


class PlaySession:
    """Between the episode (a worker thread calling :meth:`answer`) and the page's requests.

    ``mode`` is ``paced`` or ``live``; ``step_seconds`` the game time of one step (live: the
    slice). The page reads :meth:`state` and :meth:`frame`, and answers with :meth:`submit`
    (paced), :meth:`start` and :meth:`add_events` (live), or :meth:`end`.
    """

    def __init__(self, mode: str, step_seconds: float, title: str = "") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self.step_seconds = step_seconds
        self.title = title
        self._cond = threading.Condition()
        self._frame = b""
        self._frame_id = 0
        self._step = -1
        self._t_game = 0.0
        self._screen = (0, 0)
        self._prompt = ""
        self._system = ""
        self._waiting = False
        self._answer: list[Action] | None = None
        self._ended = False
        self._started: float | None = None  # live: when the person pressed Start
        self._next_slice: float | None = None
        self._live = LiveInput()
        self.result: dict[str, Any] | None = None

    # -- the episode's side ---------------------------------------------------------------

    def answer(self, request: StepRequest) -> HumanAnswer:
        """Show the step's frame and wait for the person (paced) or the wall clock (live)."""
        encoded = encode_frame(request.frame, "png" if self.mode == "paced" else "jpeg")
        with self._cond:
            self._frame, self._frame_id = encoded, self._frame_id + 1
            self._step, self._t_game, self._screen = request.step, request.t_game, request.screen
            self._prompt, self._system = request.prompt, request.system
            self._cond.notify_all()
        if self.mode == "paced":
            return self._paced(request)
        return self._live_slice(request)

    def _paced(self, request: StepRequest) -> HumanAnswer:
        deadline = _deadline(request)
        with self._cond:
            self._waiting, self._answer = True, None
            self._cond.notify_all()
            try:
                while self._answer is None and not self._ended:
                    if deadline is not None and time.monotonic() >= deadline:
                        return HumanAnswer([Wait()], {"timed_out": True})  # the loop times out
                    self._cond.wait(POLL_S)
                if self._answer is None:
                    raise StopEpisode("the player ended the episode")
                return HumanAnswer(self._answer)
            finally:
                self._waiting = False

    def _live_slice(self, request: StepRequest) -> HumanAnswer:
        deadline = _deadline(request)
        with self._cond:
            while self._started is None and not self._ended:
                if deadline is not None and time.monotonic() >= deadline:
                    return HumanAnswer([Wait()], {"timed_out": True})  # the loop times out
                self._cond.wait(POLL_S)  # the game stays frozen until the person starts
            if self._ended:
                raise StopEpisode("the player ended the episode")
        now = time.perf_counter()
        if self._next_slice is None or now - self._next_slice > self.step_seconds:
            self._next_slice = now  # first slice, or the game fell behind: no catch-up burst
        if self._next_slice > now:
            time.sleep(self._next_slice - now)
        self._next_slice += self.step_seconds
        with self._cond:
            actions, events = self._live.take(self.step_seconds)
        info = {"events": [e.record(request.t_game) for e in events]} if events else {}
        return HumanAnswer(actions, info)

    # -- the page's side ------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        with self._cond:
            return {
                "mode": self.mode,
                "title": self.title,
                "step": self._step,
                "t_game": round(self._t_game, 3),
                "step_seconds": self.step_seconds,
                "screen": list(self._screen),
                "frame_id": self._frame_id,
                "waiting": self._waiting,
                "started": self._started is not None,
                "ended": self._ended,
                "prompt": self._prompt,
                "system": self._system,
                "result": self.result,
            }

    def frame(self) -> bytes:
        with self._cond:
            return self._frame

    def submit(self, step: Any, actions: Any) -> None:
        """The person's answer to paced step ``step``: a list of canonical action objects."""
        if self.mode != "paced":
            raise PlayError("actions are sent as events in the live mode")
        if not isinstance(actions, list):
            raise PlayError("actions must be a list")
        parsed = [_action(obj, self._screen) for obj in actions]
        with self._cond:
            if not self._waiting or step != self._step or self._answer is not None:
                raise PlayError(f"step {step} is not waiting for an answer (now {self._step})")
            self._answer, self._waiting = parsed or [Wait()], False
            self._cond.notify_all()

    def start(self) -> None:
        with self._cond:
            if self._started is None:
                self._started = time.perf_counter()
            self._cond.notify_all()

    def add_events(self, events: Any) -> int:
        """Live events from the page (each with ``t``: seconds since Start, by the page's
        clock); those that are not events are refused as a whole."""
        if self.mode != "live":
            raise PlayError("events are for the live mode")
        if not isinstance(events, list):
            raise PlayError("events must be a list")
        with self._cond:
            if self._started is None:
                raise PlayError("press Start first")
            now = time.perf_counter() - self._started
            try:
                parsed = [parse_event(e, _stamp(e, now), self._screen or (1, 1)) for e in events]
            except EventError as exc:
                raise PlayError(str(exc)) from None
            for event in parsed:
                self._live.add(event)
        return len(parsed)

    def end(self) -> None:
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def finish(self, result: dict[str, Any]) -> None:
        with self._cond:
            self.result = result
            self._ended = True
            self._cond.notify_all()


def _deadline(request: StepRequest) -> float | None:
    """When (``time.monotonic``) the episode's wall-clock limit runs out; None: no limit. A
    person who never answers must not hold the game (and its sandbox) forever."""
    return None if request.wall_left_s is None else time.monotonic() + request.wall_left_s


def _stamp(event: Any, now: float) -> float:
    t = event.get("t") if isinstance(event, dict) else None
    return float(t) if isinstance(t, int | float) and 0 <= t <= now + 1.0 else now


def _action(obj: Any, screen: tuple[int, int]) -> Action:
    try:
        action = action_from_dict(obj)
    except ValueError as exc:
        raise PlayError(str(exc)) from None
    if isinstance(action, Invalid):
        raise PlayError("a person's action cannot be 'invalid'")
    if isinstance(action, Hold) and not action.release:
        # A model's keys are all released at the end of its step; a paced step is a model's.
        raise PlayError("a paced answer cannot leave keys down past its step")
    width, height = screen
    return clamp_to_screen(action, width, height) if width and height else action


def routes(session: PlaySession) -> dict[tuple[str, str], Callable[[Request], Reply]]:
    """The play page's routes over ``session``."""

    def guarded(call: Callable[[Request], Any]) -> Callable[[Request], Reply]:
        def handler(request: Request) -> Reply:
            try:
                return Reply.json({"ok": True, "result": call(request)})
            except PlayError as exc:
                return Reply.error(str(exc), 409)

        return handler

    body = lambda r: r.body if isinstance(r.body, dict) else {}  # noqa: E731
    return {
        ("GET", "/"): lambda r: Reply(200, page("play.html"), "text/html; charset=utf-8"),
        ("GET", "/api/state"): lambda r: Reply.json(session.state()),
        ("GET", "/api/frame"): lambda r: Reply(
            200, session.frame(), "image/png" if session.mode == "paced" else "image/jpeg"
        ),
        ("POST", "/api/act"): guarded(
            lambda r: session.submit(body(r).get("step"), body(r).get("actions"))
        ),
        ("POST", "/api/start"): guarded(lambda r: session.start()),
        ("POST", "/api/events"): guarded(lambda r: session.add_events(body(r).get("events"))),
        ("POST", "/api/end"): guarded(lambda r: session.end()),
    }


@dataclass(frozen=True)
class HumanRun:
    """One person's episode: who, which game, how, and where it is recorded."""

    game: GameEntry
    games_dir: Path
    out_dir: Path
    player: str
    mode: str
    condition: Condition
    corpus: str = "local"
    limits: EpisodeLimits = field(default_factory=EpisodeLimits)
    video_fps: float = 30.0
    sandbox: str = "bwrap"
    base_seed: int = 0


def play_episode(run: HumanRun, session: PlaySession) -> EpisodeMeta:
    """Play ``run`` with the person behind ``session``; the episode's ``meta.json`` content.

    The game runs on worker resources of its own (a Chromium, an X display) as a play job's
    worker would give it, in a scratch folder removed afterwards.
    """
    from playsuite.runtimes.factory import make_runtime
    from playsuite.runtimes.resources import WorkerResources

    with (
        tempfile.TemporaryDirectory(prefix="playsuite-human-") as tmp,
        WorkerResources(Path(tmp) / "worker", sandbox=run.sandbox) as resources,
    ):
        workdir = Path(tmp) / "run"
        workdir.mkdir()
        options = resources.options_for(
            run.game,
            RuntimeOptions(
                workdir=workdir,
                game_dir=run.games_dir / run.game.id / "files",
                video_fps=run.video_fps,
                sandbox=run.sandbox,
            ),
        )
        spec = EpisodeSpec(
            corpus=run.corpus,
            game=run.game,
            preset=human_preset(),
            condition=run.condition,
            out_dir=run.out_dir,
            runtime_options=options,
            limits=run.limits,
            base_seed=run.base_seed,
            readme_text=_readme(run),
            player=run.player,
            play_mode=run.mode,
        )
        return run_episode(spec, HumanPolicy(session), make_runtime)


def _readme(run: HumanRun) -> str | None:
    if not run.game.readme:
        return None
    with contextlib.suppress(OSError):
        path = run.games_dir / run.game.id / "files" / run.game.readme
        return path.read_text(encoding="utf-8", errors="replace")
    return None


def serve_and_play(
    run: HumanRun,
    *,
    port: int = 0,
    on_ready: Callable[[str], None] = print,
    linger_s: float = 5.0,
) -> EpisodeMeta:
    """Serve the play page, play ``run`` once the person is there, and return the meta.

    ``on_ready`` gets the page's address; after the episode the page shows where it was
    recorded, and the server stays up ``linger_s`` seconds for it to say so.
    """
    session = PlaySession(run.mode, run.condition.step_seconds, title=run.game.title or "")
    with PageServer(routes(session), port) as server:
        on_ready(server.url)
        try:
            meta = play_episode(run, session)
        except BaseException as exc:
            session.finish({"status": "error", "error": str(exc)})
            raise
        keys = ("status", "stop_reason", "steps", "frames", "t_game", "error")
        session.finish({**{k: meta.get(k) for k in keys}, "episode_dir": str(run.out_dir)})
        time.sleep(linger_s)
    return meta
