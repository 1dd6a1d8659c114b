"""The runtime contract checked on any corpus row, in the spirit of Gymnasium's env checker.

A game belongs in a benchmark only if the harness can drive it the way an episode does. For one
acquired row, :func:`check_game` starts the game as a worker would and checks, in order:

``launch``  ``start`` returns an H×W×3 uint8 frame at game time 0 within the launch timeout
``frozen``  a wall-clock wait changes neither game time nor the picture (the paused protocol)
``slice``   acting for a slice advances game time by exactly the slice and returns exactly
            ``frames_per_slice`` frames, the last of them the paused screen
``video``   the frames of a few slices, encoded as the recorder encodes episodes, give a video
            whose length is the game time played
``stop``    ``close`` leaves no process behind
``input``   the launch check (:func:`playsuite.runtimes.validate.validate_launch`): non-blank
            frames, and scripted input changes them (two short seeded runs)

A failed check stops the ones after it that need a running game (they are reported as not
reached); each check records what it measured, so a failing row says why.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import av
import numpy as np

from playsuite.corpus import GameEntry
from playsuite.harness.recorder import VideoWriter
from playsuite.records.conformance import CHECK_NAMES
from playsuite.runtimes.base import GameFailure, Runtime, RuntimeOptions, frames_per_slice
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.resources import WorkerResources
from playsuite.runtimes.validate import validate_launch

CHECKS = CHECK_NAMES
SLICE_S = 0.5
WAIT_S = 0.5
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

    ``options`` are :class:`RuntimeOptions` fields (``launch_timeout_s``, ``sandbox``...);
    ``resources`` (a worker's browser and display) are started here when not given.
    """
    started = time.monotonic()
    report = ConformanceReport(game.id, game.runtime)
    workdir = Path(workdir)
    own = resources is None
    worker = resources or WorkerResources(workdir / "worker")
    try:
        _runtime_checks(game, game_dir, workdir, worker, report, options)
        launch = validate_launch(
            game, game_dir, workdir / "launch-check", resources=worker, **options
        )
        detail = (
            f"{launch.get('frames_changed_by_input', 0)} of {launch.get('frames', 0)} frames "
            "changed by input"
            if launch.get("ok")
            else str(launch.get("error") or launch.get("status"))
        )
        report.checks.append(CheckResult("input", bool(launch.get("ok")), detail))
    finally:
        if own:
            worker.close()
    report.seconds = time.monotonic() - started
    return report


def _runtime_checks(
    game: GameEntry,
    game_dir: Path,
    workdir: Path,
    worker: WorkerResources,
    report: ConformanceReport,
    options: dict[str, Any],
) -> None:
    run = workdir / "contract"
    run.mkdir(parents=True, exist_ok=True)
    opts = RuntimeOptions(workdir=run, game_dir=Path(game_dir), video_fps=VIDEO_FPS, **options)
    opts = worker.options_for(game, opts)
    before = set(_descendants(os.getpid()))
    steps: list[tuple[str, Callable[[Runtime], str]]] = [
        ("launch", _check_launch),
        ("frozen", _check_frozen),
        ("slice", _check_slice),
        ("video", lambda rt: _check_video(rt, run / "check.mp4", opts.video_fps)),
    ]
    runtime = make_runtime(game, opts)
    try:
        for name, check in steps:
            try:
                report.checks.append(CheckResult(name, True, check(runtime)))
            except (AssertionError, GameFailure) as exc:
                report.checks.append(CheckResult(name, False, _why(exc)))
                break
    finally:
        runtime.close()
    reached = {c.name for c in report.checks}
    for name, _ in steps:
        if name not in reached:
            report.checks.append(CheckResult(name, None, "not reached"))
    left = _await_gone(set(_descendants(os.getpid(), skip=before)))
    report.checks.append(
        CheckResult("stop", not left, f"left running: {sorted(left)}" if left else "")
    )
    (run / "check.mp4").unlink(missing_ok=True)


def _why(exc: BaseException) -> str:
    if isinstance(exc, GameFailure):
        return f"{exc.status}: {exc}"
    return str(exc) or type(exc).__name__


def _check_launch(runtime: Runtime) -> str:
    first = runtime.start()
    width, height = runtime.screen_size
    frame = first.frame
    assert frame.shape == (height, width, 3), f"frame {frame.shape} for a {width}x{height} screen"
    assert frame.dtype == np.uint8, f"frame dtype {frame.dtype}"
    assert first.t_game == 0.0, f"first frame at game time {first.t_game}"
    return f"{width}x{height}"


def _check_frozen(runtime: Runtime) -> str:
    before = runtime.observe()
    time.sleep(WAIT_S)
    after = runtime.observe()
    assert after.t_game == before.t_game, f"game time moved by {after.t_game - before.t_game}"
    changed = int(np.count_nonzero(np.any(before.frame != after.frame, axis=-1)))
    assert changed == 0, f"{changed} pixels changed during a {WAIT_S} s wall-clock wait"
    return f"still after {WAIT_S} s of wall time"


def _check_slice(runtime: Runtime) -> str:
    t0 = runtime.observe().t_game
    frames = runtime.act([], SLICE_S)
    want = frames_per_slice(SLICE_S, runtime.options.video_fps)
    assert len(frames) == want, f"{len(frames)} frames for a {SLICE_S} s slice, expected {want}"
    after = runtime.observe()
    assert abs(after.t_game - (t0 + SLICE_S)) < 1e-6, f"game time moved {after.t_game - t0} s"
    assert np.array_equal(frames[-1], after.frame), "the last frame is not the paused screen"
    return f"{want} frames, {SLICE_S} s of game time"


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
    assert abs(length - played) < 0.5 / fps, f"video {length:.3f} s for {played:.3f} s of play"
    return f"{decoded} frames = {length:.2f} s for {played:.2f} s of game time"


def _descendants(pid: int, skip: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Processes under ``pid``, not looking under ``skip`` (processes that were already running,
    such as the worker's shared browser, whose helpers come and go on their own)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        try:
            text = Path(f"/proc/{current}/task/{current}/children").read_text()
        except OSError:
            continue
        children = [int(x) for x in text.split() if int(x) not in skip]
        found += children
        queue += children
    return found


def _await_gone(pids: set[int], timeout_s: float = 5.0) -> set[int]:
    """The ``pids`` still alive (zombies count as gone) after up to ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    alive = pids
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = {p for p in alive if _running(p)}
    return alive


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


__all__ = ["CHECKS", "CheckResult", "ConformanceReport", "check_game"]
