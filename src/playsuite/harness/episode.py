"""One episode: a game, a policy and a condition, played closed-loop into an episode directory.

The loop is DESIGN.md §2: observe → prompt (template, game text, last k steps) → policy → raw
text → parser → canonical actions → ``runtime.act`` for one step's slice of game time → record.
Game time only moves inside ``act``, so however long the policy thinks, the video holds game time.

What can go wrong is sorted by whose fault it is:

* the game fails (never renders, crashes, hangs): the episode ends with that status, everything
  recorded so far is kept, and ``meta.json`` says why;
* the model answers nonsense: the answer becomes ``invalid`` actions, executed as no-ops, counted;
* the model server refuses a request (HTTP 4xx, e.g. more images than the preset allows): the
  episode ends with status ``model_error``, everything before it kept;
* our own code fails (a bug, a sandbox that cannot start): status ``harness_error``, everything
  before it kept, the traceback in the log;
* the infrastructure fails (the model server is gone after retries, the harness is interrupted):
  nothing that looks finished is written, so a rerun plays the episode again.

Only the game's statuses are final (:attr:`RunStatus.final`): ``model_error`` and
``harness_error`` blame us, so the node runner plays such an episode again on the next attempt
(once the setting or the bug is fixed) instead of counting it as the game's result.
"""

from __future__ import annotations

import contextlib
import dataclasses
import platform
import sys
import time
import traceback
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from playsuite import __version__
from playsuite.actions import Invalid, actions_to_json
from playsuite.actions.parsers import parse_response
from playsuite.actions.parsers.common import writable_text
from playsuite.agents.history import History, entry_from_response
from playsuite.agents.policy import Policy, StepRequest
from playsuite.agents.prompts import EpisodePrompt
from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.files import InsufficientSpace
from playsuite.harness.recorder import EpisodeRecorder
from playsuite.inference.client import InferenceRequestError
from playsuite.records.episode import META_FORMAT, EpisodeMeta
from playsuite.registry import Preset
from playsuite.runtimes.base import GameFailure, Observation, RunStatus, Runtime, RuntimeOptions

#: Shortest launch or slice wait, however little of the episode's wall-clock limit is left.
MIN_WAIT_S = 1.0
#: Mean absolute pixel difference above which the screen counts as changed (loop prevention).
SCREEN_CHANGE_THRESHOLD = 0.5


@dataclass(frozen=True)
class EpisodeLimits:
    """When an episode stops: the first cap reached. ``None`` disables a cap."""

    max_steps: int | None = None
    max_game_s: float | None = 300.0
    max_frames: int | None = None
    wall_timeout_s: float | None = 3600.0


def episode_seed(base_seed: int, corpus: str, game_id: str, condition: str) -> int:
    """Same for every preset on a game and condition, so model comparisons are matched."""
    key = f"{base_seed}:{corpus}:{game_id}:{condition}"
    return zlib.crc32(key.encode()) & 0x7FFFFFFF


def episode_settings(
    *,
    corpus: str,
    game_id: str,
    preset: str,
    condition: str,
    seed: int,
    video_fps: float,
    limits: EpisodeLimits,
) -> dict[str, Any]:
    """What decides how an episode is played, as its ``meta.json`` records it.

    A rerun compares these with the current job's (:func:`settings_changes`): an episode played
    with other settings (e.g. another ``play.steps``) is not the episode the job asks for. The
    wall-clock limit is left out: it is a safety bound, not part of what an episode is.
    """
    return {
        "corpus": corpus,
        "game": game_id,
        "preset": preset,
        "condition": condition,
        "seed": seed,
        "video_fps": video_fps,
        "limits": {
            "max_steps": limits.max_steps,
            "max_game_s": limits.max_game_s,
            "max_frames": limits.max_frames,
        },
    }


def settings_changes(meta: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """The settings in which a recorded episode differs from ``expected``, one line each
    (``limits.max_steps: played with 4, asked 8``). A setting the episode does not record (an
    episode from an older version) cannot be compared and is not reported."""
    changes = []
    for key, want in expected.items():
        if key not in meta:
            continue
        have = meta[key]
        if isinstance(want, dict) and isinstance(have, dict):
            changes += [
                f"{key}.{sub}: played with {have[sub]!r}, asked {value!r}"
                for sub, value in want.items()
                if sub in have and have[sub] != value
            ]
        elif have != want:
            changes.append(f"{key}: played with {have!r}, asked {want!r}")
    return changes


@dataclass
class EpisodeSpec:
    """Everything that defines one episode; ``out_dir`` is its episode directory."""

    corpus: str
    game: GameEntry
    preset: Preset
    condition: Condition
    out_dir: Path
    runtime_options: RuntimeOptions
    limits: EpisodeLimits = field(default_factory=EpisodeLimits)
    base_seed: int = 0
    readme_text: str | None = None
    #: The triage policy of the game is ``monitor``: it plays with extra logging
    #: (playsuite.harness.monitor) kept in ``monitor_dir``; meta.json says so.
    monitored: bool = False
    monitor_dir: Path | None = None
    #: Free space the episode's folder must have when recording starts and before its video is
    #: opened (play.min_free_mb); 0: not checked.
    min_free_bytes: int = 0

    @property
    def seed(self) -> int:
        """Same for every preset on a game and condition, so model comparisons are matched."""
        return episode_seed(self.base_seed, self.corpus, self.game.id, self.condition.name)

    @property
    def settings(self) -> dict[str, Any]:
        """The settings ``meta.json`` records for a rerun to compare (:func:`episode_settings`)."""
        return episode_settings(
            corpus=self.corpus,
            game_id=self.game.id,
            preset=self.preset.name,
            condition=self.condition.name,
            seed=self.seed,
            video_fps=self.runtime_options.video_fps,
            limits=self.limits,
        )


class InfrastructureError(RuntimeError):
    """The episode could not be played for reasons outside the game (e.g. the model server)."""


def screen_changed(before: np.ndarray, after: np.ndarray) -> bool:
    if before.shape != after.shape:
        return True
    diff = np.abs(before.astype(np.int16) - after.astype(np.int16))
    return float(diff.mean()) > SCREEN_CHANGE_THRESHOLD


def _versions() -> dict[str, str]:
    out = {"playsuite": __version__, "python": platform.python_version()}
    for dist in ("numpy", "av", "playwright", "httpx"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[dist] = metadata.version(dist)
    return out


def _should_stop(spec: EpisodeSpec, steps: int, t_game: float, frames: int) -> str | None:
    lim = spec.limits
    if lim.max_steps is not None and steps >= lim.max_steps:
        return "steps"
    if lim.max_game_s is not None and t_game >= lim.max_game_s - 1e-6:
        return "game_time"
    if lim.max_frames is not None and frames >= lim.max_frames:
        return "frames"
    return None


def _keep_failing_slice(recorder: EpisodeRecorder, failure: GameFailure) -> None:
    """Add the frames the game produced in the slice it failed in to the video: they show what
    happened, and a game that dies in its first step would otherwise leave no video at all.
    Frames the recorder cannot take (another size) are dropped: the failure is what counts."""
    with contextlib.suppress(ValueError):
        recorder.add_frames(failure.frames)


def _bound_waits(options: RuntimeOptions, waits: tuple[float, float], left_s: float | None) -> None:
    """Cut the runtime's launch and slice waits to the episode's remaining wall-clock time.

    The runtime's own limits (a minute to launch, two to finish a slice) are per call: without
    this, an episode with a 15 s wall limit could still spend two minutes inside one hung step.
    The runtime reads its options at each call, so the bound follows the clock.
    """
    launch_s, slice_s = waits
    if left_s is None:
        options.launch_timeout_s, options.slice_timeout_s = launch_s, slice_s
        return
    left_s = max(left_s, MIN_WAIT_S)
    options.launch_timeout_s = min(launch_s, left_s)
    options.slice_timeout_s = min(slice_s, left_s)


def run_episode(
    spec: EpisodeSpec,
    policy: Policy,
    make_runtime: Callable[[GameEntry, RuntimeOptions], Runtime],
    on_step: Callable[[int, float], None] | None = None,
) -> EpisodeMeta:
    """Play one episode into ``spec.out_dir`` and return its ``meta.json`` content.

    Raises :class:`InfrastructureError` (after discarding partial files) when the policy cannot
    answer; game failures are recorded, not raised.
    """
    started = time.perf_counter()
    cpu_started = time.process_time()  # this process only: the game and the model run elsewhere
    step_s = spec.condition.step_seconds
    prompt = EpisodePrompt.for_run(
        spec.preset, spec.condition, spec.game.to_dict(), readme_text=spec.readme_text
    )
    history = History(spec.condition.history_k)
    meta: EpisodeMeta = {  # the contract: playsuite.records.episode, checked when written
        "format": META_FORMAT,
        "corpus": spec.corpus,
        "game": spec.game.id,
        "runtime": spec.game.runtime,
        "preset": spec.preset.name,
        "family": spec.preset.family,
        "parser": spec.preset.parser,
        "template": prompt.template.name,
        "condition": spec.condition.name,
        "history_k": spec.condition.history_k,
        "hz": spec.condition.hz,
        "variant": spec.condition.variant,
        "step_seconds": step_s,
        "seed": spec.seed,
        "versions": _versions(),
        "host": platform.node(),
        "monitored": spec.monitored,
        **spec.settings,
        "wall_timeout_s": spec.limits.wall_timeout_s,
    }
    if spec.monitor_dir is not None:
        meta["monitor_dir"] = str(spec.monitor_dir)
    status, error, stop_reason = RunStatus.OK, "", ""
    launch_s = model_s = 0.0
    invalid_steps = 0
    t_game = 0.0
    # This episode's own copy: its waits are cut to the wall-clock time the episode has left.
    options = dataclasses.replace(spec.runtime_options, seed=spec.seed)
    waits = (options.launch_timeout_s, options.slice_timeout_s)

    def left_s() -> float | None:
        limit = spec.limits.wall_timeout_s
        return None if limit is None else limit - (time.perf_counter() - started)

    _bound_waits(options, waits, left_s())
    try:
        recorder = EpisodeRecorder(spec.out_dir, options.video_fps, spec.min_free_bytes)
    except InsufficientSpace as exc:  # no room to record: ours to fix, the game plays later
        raise InfrastructureError(str(exc)) from exc
    with recorder:
        runtime = make_runtime(spec.game, options)
        try:
            t0 = time.perf_counter()
            try:
                obs: Observation = runtime.start()
            finally:
                launch_s = time.perf_counter() - t0
            # The model sees the frame: its size is the coordinate space of the answer, even for
            # a game that resizes its window or a screen that clips it.
            screen = (obs.frame.shape[1], obs.frame.shape[0])
            meta["screen"] = list(screen)
            while True:
                if reason := _should_stop(spec, recorder.steps, t_game, recorder.frames):
                    stop_reason = reason
                    break
                wall = time.perf_counter() - started
                if spec.limits.wall_timeout_s is not None and wall > spec.limits.wall_timeout_s:
                    status = RunStatus.TIMEOUT
                    error = (
                        f"episode exceeded its wall-clock limit of {spec.limits.wall_timeout_s} s"
                    )
                    break
                step = recorder.steps
                screen = (obs.frame.shape[1], obs.frame.shape[0])
                text = prompt.render(screen, history=history)
                request = StepRequest(
                    frame=obs.frame,
                    game=spec.game.to_dict(),
                    step=step,
                    t_game=obs.t_game,
                    screen=screen,
                    prompt=text,
                    history=history.entries(),
                    step_seconds=step_s,
                    wall_left_s=left_s(),
                    system=prompt.render_system(screen),
                )
                try:
                    reply = policy.act(request)
                except InferenceRequestError as exc:
                    # The server refused the request itself (too many images, a prompt over the
                    # context): the same request would fail again, so replaying cannot help.
                    status = RunStatus.MODEL_ERROR
                    error = f"the model server refused step {step}'s request: {exc}"
                    stop_reason = "model_error"
                    break
                except Exception as exc:
                    raise InfrastructureError(f"policy {policy.name!r} failed: {exc}") from exc
                model_s += reply.latency_s
                actions = parse_response(
                    spec.preset.parser,
                    reply.text,
                    screen=screen,
                    image=reply.image_size,
                    options=spec.preset.parser_options,
                )
                invalid = any(isinstance(a, Invalid) for a in actions)
                # What the trace, the history and the next prompt carry: valid Unicode always.
                response = writable_text(reply.text)
                record: dict[str, Any] = {
                    "step": step,
                    "t_game": round(obs.t_game, 6),
                    "frame": recorder.frames,
                    "response": response,
                    "actions": actions_to_json(actions),
                    "invalid": invalid,
                    "latency_s": round(reply.latency_s, 4),
                    "image_size": list(reply.image_size),
                }
                if obs.probes:
                    record["probes"] = obs.probes
                if reply.info:
                    record["info"] = reply.info
                before = obs.frame
                history.add(
                    entry_from_response(
                        step,
                        obs.t_game,
                        response,
                        invalid=invalid,
                        frame=before if spec.preset.history_frames else None,
                    )
                )
                _bound_waits(options, waits, left_s())
                try:
                    frames = runtime.act(actions, step_s)
                except GameFailure as failure:
                    _keep_failing_slice(recorder, failure)
                    recorder.add_step(record)
                    invalid_steps += invalid
                    raise
                recorder.add_frames(frames)
                recorder.add_step(record)
                invalid_steps += invalid  # counted once the step is recorded, never before
                obs = runtime.observe()
                t_game = obs.t_game
                history.mark_last(screen_changed(before, obs.frame))
                if on_step is not None:
                    on_step(step, t_game)
            if status == RunStatus.OK and (probes := runtime.probes()):
                meta["final_probes"] = probes
        except GameFailure as failure:
            status, error = failure.status, str(failure)
        except InfrastructureError:
            raise
        except InsufficientSpace as exc:  # the disk is ours, not the game's: play it again later
            raise InfrastructureError(str(exc)) from exc
        except Exception as exc:
            # A bug met on one game must not stop the node's other games, nor be blamed on the
            # game: the episode is recorded as a harness error (not final: a rerun replays it),
            # with what was played so far and the traceback in the log.
            traceback.print_exc(file=sys.stderr)
            status, error = RunStatus.HARNESS_ERROR, f"harness error: {type(exc).__name__}: {exc}"
        finally:
            runtime.close()
        steps = recorder.steps
        meta.update(
            {
                "status": str(status),
                "error": error,
                "stop_reason": stop_reason,
                "steps": steps,
                "frames": recorder.frames,
                "t_game": round(recorder.frames / options.video_fps, 6),
                "invalid_steps": invalid_steps,
                "invalid_rate": round(invalid_steps / steps, 6) if steps else 0.0,
                "launch_s": round(launch_s, 4),
                "model_s": round(model_s, 4),
                "wall_s": round(time.perf_counter() - started, 4),
                "harness_cpu_s": round(time.process_time() - cpu_started, 4),
            }
        )
        recorder.finish(meta)
    return meta
