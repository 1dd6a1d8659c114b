"""The runtime contract checked on any corpus row, in the spirit of Gymnasium's env checker.

A game belongs in a benchmark only if the harness can drive it the way an episode does. For one
acquired row, :func:`check_game` starts the game as a worker would and checks:

``launch``  ``start`` returns an H×W×3 uint8 frame of the screen's size at game time 0
``frozen``  a wall-clock wait changes neither game time nor the picture (the paused protocol)
``slice``   acting for a slice advances game time by exactly the slice and returns exactly
            ``frames_per_slice`` frames, the last of them the paused screen
``stop``    ``close`` leaves no process behind
``input``   non-blank frames, and scripted input changes them (two short seeded runs)
``video``   the frames of a few slices, encoded as the recorder encodes episodes, give a video
            whose length is the game time played

The first five are the launch check's (:func:`playsuite.runtimes.validate.validate_launch`
runs the contract checks of :mod:`playsuite.runtimes.contract` on its idle run), so every
launch-checked game has passed them; ``video`` adds a run of its own. A broken check makes the
checks after it "not reached"; each check records what it measured, so a failing row says why.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import av

from playsuite.corpus import GameEntry
from playsuite.harness.recorder import VideoWriter
from playsuite.records.conformance import CHECK_NAMES
from playsuite.runtimes.base import GameFailure, Runtime, RuntimeOptions
from playsuite.runtimes.contract import SLICE_S, ContractError, require
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.resources import WorkerResources
from playsuite.runtimes.validate import CONTRACT_ERROR, validate_launch

CHECKS = CHECK_NAMES
VIDEO_SLICES = 4
VIDEO_FPS = 10.0


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool | None  # None: not reached, an earlier check failed
    detail: str = ""


@dataclass
class ConformanceReport:
    """Every check's verdict for one row; ``ok`` when all of them passed."""

    game: str
    runtime: str
    checks: list[CheckResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return len(self.checks) == len(CHECKS) and all(c.ok for c in self.checks)

    @property
    def first_failure(self) -> CheckResult | None:
        return next((c for c in self.checks if c.ok is False), None)

    def to_dict(self) -> dict[str, Any]:
        failure = self.first_failure
        return {
            "game": self.game,
            "runtime": self.runtime,
            "ok": self.ok,
            "failed_check": failure.name if failure else None,
            "reason": failure.detail if failure else "",
            "seconds": round(self.seconds, 3),
            "checks": [asdict(c) for c in self.checks],
        }


def check_game(
    game: GameEntry,
    game_dir: Path,
    workdir: Path,
    *,
    resources: WorkerResources | None = None,
    **options: Any,
) -> ConformanceReport:
    """Put the acquired ``game`` (its files at ``game_dir``) through every check.

    The launch check (:func:`validate_launch`) runs ``launch``, ``frozen``, ``slice`` and
    ``stop`` on its idle run and ``input`` with its input run; ``video`` plays a run of its own.
    ``options`` are :class:`RuntimeOptions` fields (``launch_timeout_s``, ``sandbox``...);
    ``resources`` (a worker's browser and display) are started here when not given.
    """
    started = time.monotonic()
    report = ConformanceReport(game.id, game.runtime)
    workdir = Path(workdir)
    own = resources is None
    worker = resources or WorkerResources(workdir / "worker")
    try:
        verdict = validate_launch(
            game, game_dir, workdir / "launch-check", resources=worker, **options
        )
        results = _from_launch_check(verdict)
        if results["launch"].ok:
            results["video"] = _video_check(game, game_dir, workdir / "video", worker, options)
        else:
            results["video"] = CheckResult("video", None, "not reached")
    finally:
        if own:
            worker.close()
    report.checks = [results[name] for name in CHECKS]
    report.seconds = time.monotonic() - started
    return report


def _from_launch_check(verdict: dict[str, Any]) -> dict[str, CheckResult]:
    """The launch check's verdict as the contract checks it ran: those it passed, the one it
    broke (a contract error, or a failure before the game was up), the rest not reached."""
    contract = verdict.get("contract") or {}
    error = str(verdict.get("error") or verdict.get("status") or "")
    results: dict[str, CheckResult] = {}
    broken = False
    for name in ("launch", "frozen", "slice", "stop"):
        if name in contract:
            results[name] = CheckResult(name, True, contract[name])
        elif not broken and (name == "launch" or error.startswith(CONTRACT_ERROR)):
            broken = True
            results[name] = CheckResult(name, False, error)
        else:
            results[name] = CheckResult(name, None, "not reached")
    if verdict.get("ok"):
        changed = f"{verdict.get('frames_changed_by_input', 0)} of {verdict.get('frames', 0)}"
        results["input"] = CheckResult("input", True, f"{changed} frames changed by input")
    elif broken:
        results["input"] = CheckResult("input", None, "not reached")
    else:
        results["input"] = CheckResult("input", False, error)
    return results


def _video_check(
    game: GameEntry,
    game_dir: Path,
    run: Path,
    worker: WorkerResources,
    options: dict[str, Any],
) -> CheckResult:
    """Play a few slices into a video as the recorder does; its length must be the game time."""
    run.mkdir(parents=True, exist_ok=True)
    opts = RuntimeOptions(workdir=run, game_dir=Path(game_dir), video_fps=VIDEO_FPS, **options)
    try:
        with make_runtime(game, worker.options_for(game, opts)) as runtime:
            runtime.start()
            return CheckResult("video", True, _check_video(runtime, run / "check.mp4", VIDEO_FPS))
    except (ContractError, GameFailure) as exc:
        return CheckResult("video", False, _why(exc))
    finally:
        (run / "check.mp4").unlink(missing_ok=True)


def _why(exc: BaseException) -> str:
    if isinstance(exc, GameFailure):
        return f"{exc.status}: {exc}"
    return str(exc) or type(exc).__name__


def _check_video(runtime: Runtime, path: Path, fps: float) -> str:
    t0 = runtime.observe().t_game
    writer = VideoWriter(path, fps)
    try:
        for _ in range(VIDEO_SLICES):
            for frame in runtime.act([], SLICE_S):
                writer.add(frame)
    finally:
        writer.close()
    played = runtime.observe().t_game - t0
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        decoded = sum(1 for _ in container.decode(stream))
    length = decoded / fps
    require(abs(length - played) < 0.5 / fps, f"video {length:.3f} s for {played:.3f} s of play")
    return f"{decoded} frames = {length:.2f} s for {played:.2f} s of game time"


__all__ = ["CHECKS", "CheckResult", "ConformanceReport", "check_game"]
