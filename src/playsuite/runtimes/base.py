"""The one interface every game runtime implements.

The harness drives pygame, browser and native games the same way: start (game time paused),
observe, act for a slice of game time, close. Failures of the *game* (it never renders, crashes,
hangs) are reported as :class:`GameFailure` with a run status, never as an arbitrary exception, so
one broken game cannot kill a worker that has other games to play.

Video contract: ``act(actions, seconds)`` returns the frames of that slice sampled at
``video_fps`` at evenly spaced game times (``round(seconds * video_fps)`` frames, the last one at
the end of the slice), so a recorder that appends them gets a video whose duration equals the game
time played.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from playsuite.actions import Action
from playsuite.config import game_option_default
from playsuite.corpus import GameEntry

if TYPE_CHECKING:  # the browser module imports this one
    from playsuite.runtimes.browser_worker import WorkerBrowser


class RunStatus(enum.StrEnum):
    """Episode status values recorded in ``meta.json`` (DESIGN.md "Episode directory").

    Only what the game did is a final result; a status that blames us (:attr:`final` false)
    keeps its evidence on disk but leaves the episode to be played again by a rerun.
    """

    OK = "ok"
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    LAUNCH_FAILED = "launch_failed"
    SANDBOX_VIOLATION = "sandbox_violation"
    MODEL_ERROR = "model_error"  # the model server refused a step's request (HTTP 4xx)
    HARNESS_ERROR = "harness_error"  # our code failed (a bug, a sandbox that cannot start)

    @property
    def final(self) -> bool:
        """True when the status is the game's own outcome, so a rerun must not replay it.

        ``model_error`` and ``harness_error`` say the request we built or the code we ran failed:
        once the setting or the bug is fixed the same episode can be played properly.
        """
        return self not in (RunStatus.MODEL_ERROR, RunStatus.HARNESS_ERROR)


def is_final_status(status: str) -> bool:
    """:attr:`RunStatus.final` for a status read from disk; an unknown status is not final."""
    try:
        return RunStatus(status).final
    except ValueError:
        return False


class GameFailure(RuntimeError):
    """The game, not the harness, failed; ``status`` is what the episode records.

    ``frames`` are the video frames the game produced in the failing slice before it failed:
    the recorder keeps them, so a game that dies in its first step still leaves a video.
    """

    def __init__(
        self, status: RunStatus, message: str, frames: list[np.ndarray] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.frames: list[np.ndarray] = list(frames or [])


class GameExited(GameFailure):
    """The game quit by itself (exit code 0), e.g. a Quit menu entry: the episode just ends."""

    def __init__(self, message: str, frames: list[np.ndarray] | None = None) -> None:
        super().__init__(RunStatus.OK, message, frames)


@dataclass(frozen=True)
class Observation:
    """The current screen (H×W×3 uint8) at game time ``t_game`` seconds."""

    frame: np.ndarray
    t_game: float
    probes: dict[str, Any] = field(default_factory=dict)


@dataclass
class RuntimeOptions:
    """Per-run settings the harness passes to every runtime.

    The last four fields carry what a worker shares across its games (built by
    :class:`playsuite.runtimes.resources.WorkerResources`); each runtime reads the ones it needs
    and starts a private one when a field is empty.
    """

    workdir: Path  # private scratch for this run (HOME, logs); created by the caller
    game_dir: Path  # the acquired game's files, {games_dir}/{id}/files (read-only in the sandbox)
    seed: int = 0
    video_fps: float = 30.0
    launch_timeout_s: float = 60.0
    slice_timeout_s: float = 120.0  # wall-clock bound on one act() call
    sandbox: str = "bwrap"  # "bwrap" | "apptainer" | "none" (tests of the sandbox itself only)
    display: str | None = None  # X display for native / OpenGL games, owned by the worker
    apptainer_image: str | None = None  # the apptainer backend's image (game-sandbox.sif)
    browser: WorkerBrowser | None = None  # a Chromium shared by the worker's browser games
    mesa_cache: Path | None = None  # a worker-wide Mesa shader cache (native / OpenGL games)
    clock_rate: float = 1.0  # native games: game seconds per wall second (play.native_clock_rate)


class Runtime(ABC):
    """A running game. Use as a context manager so ``close`` always runs."""

    def __init__(self, game: GameEntry, options: RuntimeOptions) -> None:
        self.game = game
        self.options = options

    @property
    @abstractmethod
    def screen_size(self) -> tuple[int, int]:
        """(width, height) of the game's screen in pixels: the coordinate space of actions."""

    @property
    def video_fps(self) -> float:
        return self.options.video_fps

    @abstractmethod
    def start(self) -> Observation:
        """Launch inside the sandbox, wait (polling) until the first real frame, pause game time.

        Raises :class:`GameFailure` with ``LAUNCH_FAILED`` (or ``SANDBOX_VIOLATION``).
        """

    @abstractmethod
    def observe(self) -> Observation:
        """The current frame and game time; game time does not move."""

    @abstractmethod
    def act(self, actions: list[Action], seconds: float) -> list[np.ndarray]:
        """Inject ``actions``, advance game time by ``seconds``, pause again; frames for the video.

        Raises :class:`GameFailure` with ``CRASHED`` or ``TIMEOUT``.
        """

    def probes(self) -> dict[str, Any]:
        """Values of the game's declared probes now (empty when it declares none)."""
        return {}

    @abstractmethod
    def close(self) -> None:
        """Stop the game and reap every process it started. Safe to call twice."""

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def readiness(game: GameEntry) -> tuple[float, float]:
    """``(settle_s, max_s)`` of the readiness rule (:mod:`playsuite.runtimes.screen_settle`):
    the row's ``options.ready_settle_s`` / ``ready_max_s``, else the corpus schema's defaults."""
    opts = game.options or {}
    return tuple(  # type: ignore[return-value]
        float(opts.get(key, game_option_default(key))) for key in ("ready_settle_s", "ready_max_s")
    )


def frames_per_slice(seconds: float, fps: float) -> int:
    """How many video frames a slice of ``seconds`` contributes (at least one)."""
    return max(1, round(seconds * fps))
