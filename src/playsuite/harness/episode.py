"""One episode: a game, a policy and a condition, played closed-loop into an episode directory.

The loop is DESIGN.md §2: observe → agent (prompt from template, game text and last k steps;
policy; raw text; parser) → canonical actions → one step of the game's Gymnasium env
(:class:`~playsuite.runtimes.env.GameEnv`: ``runtime.act`` for one step's slice of game time)
→ record. Game time only moves inside ``act``, so however long the policy thinks, the video holds
game time (unless the condition plays in real time, when the loop itself plays the thinking
time as game time first: playsuite.harness.protocol, which also holds the action budget and
reset on fail). The :class:`~playsuite.agents.agent.Agent` owns everything about the model's side,
wrappers (playsuite.harness.wrappers) bound the waits and record the frames, and the loop here
only checks the caps, passes frames and actions, and sorts out how the episode ended.

What can go wrong is sorted by whose fault it is:

* the game fails (never renders, crashes, hangs): the episode ends with that status, everything
  recorded so far is kept, and ``meta.json`` says why;
* the model answers nonsense: the answer becomes ``invalid`` actions, executed as no-ops, counted;
* the model server refuses a request (HTTP 4xx, e.g. more images than the preset allows), or a
  hosted endpoint refuses the API key (401/403): the episode ends with status ``model_error``,
  everything before it kept, the reason in ``error``;
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
import math
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
from playsuite.actions import actions_to_json
from playsuite.agents.agent import Agent, AgentStep, PolicyFailed
from playsuite.agents.policy import Policy, StopEpisode
from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.files import InsufficientSpace
from playsuite.harness.protocol import BEFORE_PROTOCOLS, PlayProtocol, game_over
from playsuite.harness.recorder import EpisodeRecorder
from playsuite.harness.wrappers import Recording, WallClock
from playsuite.inference.client import InferenceAuthError, InferenceRequestError
from playsuite.records.episode import (
    META_FORMAT,
    Attempt,
    EpisodeMeta,
    ModelRecord,
    TraceStep,
    UsageRecord,
)
from playsuite.registry import Preset
from playsuite.runtimes.base import GameFailure, RunStatus, Runtime, RuntimeOptions
from playsuite.runtimes.env import GameEnv

#: Mean absolute pixel difference above which the screen counts as changed (loop prevention).
SCREEN_CHANGE_THRESHOLD = 0.5


@dataclass(frozen=True)
class EpisodeLimits:
    """When an episode stops: the first cap reached. ``None`` disables a cap."""

    max_steps: int | None = None
    max_game_s: float | None = 300.0
    max_frames: int | None = None
    wall_timeout_s: float | None = 3600.0

    def step_budget(self, step_seconds: float, fps: float) -> int | None:
        """The most steps an episode can take under these caps at ``step_seconds`` of game time
        per step and ``fps`` recorded frames per second (``None``: no cap bounds the steps).

        The loop checks the caps before each step, so a game-time or frame cap of C allows
        ``ceil(C / per step)`` steps. An episode may end sooner (the game quits, the wall clock).
        """
        bounds = [self.max_steps] if self.max_steps is not None else []
        if step_seconds > 0:
            seconds = [self.max_game_s] if self.max_game_s is not None else []
            if self.max_frames is not None and fps > 0:
                seconds.append(self.max_frames / fps)
            bounds += [math.ceil(s / step_seconds - 1e-9) for s in seconds]
        return min(bounds) if bounds else None


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
    protocol: PlayProtocol | None = None,
) -> dict[str, Any]:
    """What decides how an episode is played, as its ``meta.json`` records it.

    A rerun compares these with the current job's (:func:`settings_changes`): an episode played
    with other settings (e.g. another ``play.steps``) is not the episode the job asks for. The
    wall-clock limit is left out: it is a safety bound, not part of what an episode is.
    The protocol (playsuite.harness.protocol) is recorded when given.
    """
    settings: dict[str, Any] = {
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
    if protocol is not None:
        settings["protocol"] = protocol.as_dict()
    return settings


def settings_changes(meta: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """The settings in which a recorded episode differs from ``expected``, one line each
    (``limits.max_steps: played with 4, asked 8``). A setting the episode does not record (an
    episode from an older version) cannot be compared and is not reported, except the protocol:
    an episode from before it was recorded was played paused."""
    changes = []
    meta = {"protocol": BEFORE_PROTOCOLS.as_dict(), **meta}
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
    #: What the job's model server serves (ShardJob.served_model); None when the caller ran no
    #: server of its own (meta.json then records what the preset says, see model_record).
    served_model: ModelRecord | None = None
    #: A person played (playsuite.human): ``meta.json`` then records ``agent: human``, this
    #: pseudonymous ``player`` id and the ``play_mode`` (``paced`` or ``live``).
    player: str | None = None
    play_mode: str | None = None
    #: How the game's clock and a game over are treated (playsuite.harness.protocol).
    protocol: PlayProtocol = field(default_factory=PlayProtocol.from_schema)

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
            protocol=self.protocol,
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


def model_record(spec: EpisodeSpec) -> ModelRecord | None:
    """``meta.json``'s ``model``: what the job's server reported, else what the preset names
    (an episode on a client a caller handed in), and None for a baseline."""
    if spec.served_model is not None:
        return spec.served_model
    endpoint = spec.preset.endpoint
    if spec.preset.hosted and endpoint is not None:  # somebody else's server: name it, no key
        return {
            "hf_id": None,
            "revision": None,
            "served": endpoint.model,
            "engine": spec.preset.kind,
            "engine_version": None,
            "endpoint": endpoint.base_url,
        }
    if not spec.preset.needs_server:
        return None
    return {
        "hf_id": spec.preset.hf_id,
        "revision": spec.preset.revision,
        "served": None,
        "engine": None,
        "engine_version": None,
    }


def _should_stop(limits: EpisodeLimits, steps: int, t_game: float, frames: int) -> str | None:
    """The cap the episode has reached (its ``stop_reason``), or None to play on."""
    if limits.max_steps is not None and steps >= limits.max_steps:
        return "steps"
    if limits.max_game_s is not None and t_game >= limits.max_game_s - 1e-6:
        return "game_time"
    if limits.max_frames is not None and frames >= limits.max_frames:
        return "frames"
    return None


@dataclass
class EpisodeOutcome:
    """How an episode went, gathered while it plays; :func:`episode_meta` writes it down."""

    status: RunStatus = RunStatus.OK
    error: str = ""
    stop_reason: str = ""
    #: The first frame's (width, height); None when the game never rendered one.
    screen: tuple[int, int] | None = None
    final_probes: dict[str, Any] = field(default_factory=dict)
    launch_s: float = 0.0
    #: A sped-up native game's clock: the rate asked for, the rate it ended at, and why it fell
    #: back to real time if it did (playsuite.runtimes.native_runtime).
    native_clock: dict[str, Any] = field(default_factory=dict)
    model_s: float = 0.0
    invalid_steps: int = 0
    #: The game's launches under ``reset_on_fail`` (meta.json's ``attempts``), first one included.
    attempts: list[Attempt] = field(default_factory=list)
    #: the answers' token usage and requests, summed (:meth:`count_usage`)
    usage: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("prompt_tokens", "completion_tokens", "total_tokens", "requests", "retries"), 0
        )
    )
    started: float = field(default_factory=time.perf_counter)
    #: This process only: the game and the model run elsewhere.
    cpu_started: float = field(default_factory=time.process_time)

    def count_usage(self, info: dict[str, Any]) -> None:
        """Add one answer's ``info`` (the trace's: ``usage``, ``attempts``) to the sums. A
        policy that reports no usage (a baseline) adds nothing."""
        usage = info.get("usage")
        if not isinstance(usage, dict):
            return
        counts = {
            key: value
            for key in ("prompt_tokens", "completion_tokens", "total_tokens")
            if isinstance(value := usage.get(key), int) and not isinstance(value, bool)
        }
        counts.setdefault(  # some servers leave the total out
            "total_tokens", counts.get("prompt_tokens", 0) + counts.get("completion_tokens", 0)
        )
        for key, value in counts.items():
            self.usage[key] += value
        self.usage["requests"] += 1
        attempts = info.get("attempts")
        if isinstance(attempts, int) and attempts > 1:
            self.usage["retries"] += attempts - 1

    def usage_record(self, preset: Preset) -> UsageRecord | None:
        """``meta.json``'s ``usage``: None for a preset no model answers (a baseline)."""
        if not preset.uses_model:
            return None
        return UsageRecord(**self.usage)  # type: ignore[typeddict-item]  # the five keys


def episode_meta(
    spec: EpisodeSpec,
    template: str,
    outcome: EpisodeOutcome,
    recorder: EpisodeRecorder,
    video_fps: float,
) -> EpisodeMeta:
    """The episode's ``meta.json`` content: its settings, then how it went (the record's keys
    and types: playsuite.records.episode, which checks it when the recorder writes it)."""
    meta: EpisodeMeta = {
        "format": META_FORMAT,
        "corpus": spec.corpus,
        "game": spec.game.id,
        "runtime": spec.game.runtime,
        "preset": spec.preset.name,
        "family": spec.preset.family,
        "parser": spec.preset.parser,
        "template": template,
        "condition": spec.condition.name,
        "history_k": spec.condition.history_k,
        "hz": spec.condition.hz,
        "variant": spec.condition.variant,
        "condition_settings": spec.condition.as_dict(),
        "sampling": dict(spec.preset.sampling),
        "step_seconds": spec.condition.step_seconds,
        "seed": spec.seed,
        "versions": _versions(),
        "model": model_record(spec),
        "usage": outcome.usage_record(spec.preset),
        "host": platform.node(),
        "monitored": spec.monitored,
        **spec.settings,
        "wall_timeout_s": spec.limits.wall_timeout_s,
    }
    if spec.monitor_dir is not None:
        meta["monitor_dir"] = str(spec.monitor_dir)
    if spec.player is not None:
        meta["agent"] = "human"
        meta["player"] = spec.player
        meta["play_mode"] = spec.play_mode or "paced"
    if outcome.screen is not None:
        meta["screen"] = list(outcome.screen)
    if outcome.final_probes:
        meta["final_probes"] = outcome.final_probes
    if outcome.native_clock:
        meta["native_clock"] = outcome.native_clock
    if outcome.attempts:
        meta["attempts"] = outcome.attempts
    steps = recorder.steps
    meta.update(
        {
            "status": str(outcome.status),
            "error": outcome.error,
            "stop_reason": outcome.stop_reason,
            "steps": steps,
            "frames": recorder.frames,
            "t_game": round(recorder.frames / video_fps, 6),
            "invalid_steps": outcome.invalid_steps,
            "invalid_rate": round(outcome.invalid_steps / steps, 6) if steps else 0.0,
            "launch_s": round(outcome.launch_s, 4),
            "model_s": round(outcome.model_s, 4),
            "wall_s": round(time.perf_counter() - outcome.started, 4),
            "harness_cpu_s": round(time.process_time() - outcome.cpu_started, 4),
        }
    )
    return meta


def trace_record(decided: AgentStep, frame_index: int, probes: dict[str, Any] | None) -> TraceStep:
    """One line of ``trace.jsonl``: what the agent saw and answered at a step.

    ``frame_index`` is the video frame the step starts at; ``probes`` the game's probes then.
    """
    record: TraceStep = {
        "step": decided.step,
        "t_game": round(decided.t_game, 6),
        "frame": frame_index,
        "response": decided.response,
        "actions": actions_to_json(decided.actions),
        "invalid": decided.invalid,
        "latency_s": round(decided.latency_s, 4),
        "image_size": list(decided.image_size),
    }
    if probes:
        record["probes"] = probes
    if decided.info:
        record["info"] = decided.info
    return record


def run_episode(
    spec: EpisodeSpec,
    policy: Policy | Agent,
    make_runtime: Callable[[GameEntry, RuntimeOptions], Runtime],
    on_step: Callable[[int, float], None] | None = None,
) -> EpisodeMeta:
    """Play one episode into ``spec.out_dir`` and return its ``meta.json`` content.

    ``policy`` is wrapped in an :class:`Agent` for the spec's preset and condition (or is one).
    Raises :class:`InfrastructureError` (after discarding partial files) when the policy cannot
    answer; game failures are recorded, not raised.
    """
    outcome = EpisodeOutcome()
    agent = policy if isinstance(policy, Agent) else Agent(policy, spec.preset, spec.condition)
    agent.reset(spec.game.to_dict(), readme_text=spec.readme_text)
    # This episode's own copy: its waits are cut to the wall-clock time the episode has left.
    options = dataclasses.replace(spec.runtime_options, seed=spec.seed)
    game = GameEnv(
        spec.game,
        runtime_options=options,
        make_runtime=make_runtime,
        step_seconds=spec.condition.step_seconds,
    )
    clock = WallClock(game, options, spec.limits.wall_timeout_s, outcome.started)
    try:
        recorder = EpisodeRecorder(spec.out_dir, options.video_fps, spec.min_free_bytes)
    except InsufficientSpace as exc:  # no room to record: ours to fix, the game plays later
        raise InfrastructureError(str(exc)) from exc
    with recorder:
        game.prepare()  # a runtime that cannot even be built is raised, not blamed on the game
        env = Recording(clock, recorder)
        try:
            _play(spec.limits, spec.protocol, agent, env, clock, outcome, on_step)
        except GameFailure as failure:
            outcome.status, outcome.error = failure.status, str(failure)
        except InfrastructureError:
            raise
        except InsufficientSpace as exc:  # the disk is ours, not the game's: play it again later
            raise InfrastructureError(str(exc)) from exc
        except Exception as exc:
            # A bug met on one game must not stop the node's other games, nor be blamed on the
            # game: the episode is recorded as a harness error (not final: a rerun replays it),
            # with what was played so far and the traceback in the log.
            traceback.print_exc(file=sys.stderr)
            outcome.status = RunStatus.HARNESS_ERROR
            outcome.error = f"harness error: {type(exc).__name__}: {exc}"
        finally:
            env.close()
        recorder.keep_logs(options.workdir)  # the worker deletes the run's folder afterwards
        meta = episode_meta(spec, agent.template_name, outcome, recorder, options.video_fps)
        recorder.finish(meta)
    return meta


def _play(
    limits: EpisodeLimits,
    protocol: PlayProtocol,
    agent: Agent,
    env: Recording,
    clock: WallClock,
    outcome: EpisodeOutcome,
    on_step: Callable[[int, float], None] | None,
) -> None:
    """Launch the game, then play steps until a cap or the game's end; fills ``outcome``.

    Game failures at launch, and bugs, are raised; a failing step ends the episode with its
    status after the step (and the frames the game managed) is recorded. Under the protocol's
    ``realtime`` the model's thinking time is played before each step's actions; under
    ``reset_on_fail`` a game over relaunches the game (playsuite.harness.protocol).
    """
    recorder = env.recorder
    frame, info = _launch(env, outcome)
    outcome.screen = (frame.shape[1], frame.shape[0])
    # Game time of the episode: a relaunched game's clock starts again at 0, the episode's not.
    offset = 0.0
    t_game = 0.0
    if protocol.reset_on_fail:
        outcome.attempts.append(_attempt(0, 0, 0.0, outcome.launch_s))
    while True:
        if reason := _should_stop(limits, recorder.steps, t_game, recorder.frames):
            outcome.stop_reason = reason
            break
        if clock.over():
            outcome.status = RunStatus.TIMEOUT
            outcome.error = f"episode exceeded its wall-clock limit of {limits.wall_timeout_s} s"
            return
        asked = time.perf_counter()
        try:
            decided = agent.act(frame, offset + info["t_game"], clock.left_s())
        except InferenceAuthError as exc:
            # A wrong or expired key: every request would fail the same way until it is fixed.
            outcome.status = RunStatus.MODEL_ERROR
            outcome.error = f"API key refused at step {agent.steps}: {exc}"
            outcome.stop_reason = "model_error"
            return
        except InferenceRequestError as exc:
            # The server refused the request itself (too many images, a prompt over the
            # context): the same request would fail again, so replaying cannot help.
            outcome.status = RunStatus.MODEL_ERROR
            outcome.error = f"the model server refused step {agent.steps}'s request: {exc}"
            outcome.stop_reason = "model_error"
            return
        except PolicyFailed as exc:
            if clock.over():  # the answer did not come in what the episode had left (a deadline)
                outcome.status = RunStatus.TIMEOUT
                outcome.error = (
                    f"episode exceeded its wall-clock limit of {limits.wall_timeout_s} s waiting "
                    f"for the answer to step {agent.steps}: {exc}"
                )
                return
            raise InfrastructureError(str(exc)) from exc.__cause__
        except StopEpisode:  # a person ended the episode (the play page's End button)
            outcome.stop_reason = "agent"
            break
        think_s = time.perf_counter() - asked
        outcome.model_s += decided.latency_s
        outcome.count_usage(decided.info)
        record = trace_record(decided, recorder.frames, info.get("probes"))
        if protocol.reset_on_fail:
            record["attempt"] = len(outcome.attempts) - 1
        if protocol.realtime and (thought := _play_thinking(env, record, think_s, offset)):
            frame, ended, info = thought
            if ended:  # the game failed while the model thought: the step never applied
                recorder.add_step(record)
                outcome.invalid_steps += decided.invalid
                outcome.status, outcome.error = RunStatus(info["status"]), info["error"]
                return
        before = frame
        try:
            frame, _, ended, _, info = env.step(decided.actions)
        except Exception as exc:
            if hasattr(exc, "slice_frames"):  # the slice was played: its step is evidence
                recorder.add_step(record)
            raise
        over = not ended and protocol.reset_on_fail and game_over(info.get("probes"))
        if over:
            record["attempt_end"] = {
                "probes": info.get("probes") or {},
                "t_game": round(offset + info["t_game"], 6),
            }
        recorder.add_step(record)
        outcome.invalid_steps += decided.invalid  # counted once the step is recorded
        if ended:  # the game quit, crashed or hung: its status, with everything so far kept
            outcome.status, outcome.error = RunStatus(info["status"]), info["error"]
            return
        t_game = offset + info["t_game"]
        agent.observe_result(screen_changed(before, frame))
        if on_step is not None:
            on_step(decided.step, t_game)
        if over:
            outcome.attempts[-1]["end"] = "game_over"
            if _should_stop(limits, recorder.steps, t_game, recorder.frames):
                continue  # the budget is spent: no attempt left to play
            offset = t_game
            frame, info = _relaunch(env, outcome, recorder, t_game)
    outcome.final_probes = env.unwrapped.probes()  # type: ignore[attr-defined]
    runtime = env.unwrapped.runtime  # type: ignore[attr-defined]
    asked_rate = getattr(runtime, "asked_clock_rate", 1.0)
    if asked_rate != 1.0:
        outcome.native_clock = {
            "asked": asked_rate,
            "rate": runtime.clock_rate,
            "fallback": runtime.clock_fallback,
        }


def _play_thinking(
    env: Recording, record: TraceStep, think_s: float, offset: float
) -> tuple[np.ndarray, bool, dict[str, Any]] | None:
    """GameWorld-RT: the game ran on while the model thought, so its answer lands later. Plays
    ``think_s`` as game time with no input (whole frames) and notes it in the step's ``record``,
    whose ``t_game`` and ``frame`` become when the actions apply; returns the env's frame, its
    ``terminated`` and info, or None when the thinking was shorter than half a frame."""
    recorder = env.recorder
    think_s = round(think_s, 4)  # as recorded: the game time played is the record's own
    thought = think_game_seconds(think_s, recorder.fps)
    record["think_s"] = think_s
    record["think_game_s"] = round(thought, 6)
    if thought <= 0:
        return None
    frame, _, ended, _, info = env.advance(thought)
    if not ended:
        record["t_game"] = round(offset + info["t_game"], 6)
        record["frame"] = recorder.frames
    return frame, ended, info


def think_game_seconds(think_s: float, fps: float) -> float:
    """The game time a model's ``think_s`` seconds of thinking are played as: whole video
    frames (the video stays game time), 0 for a wait shorter than half a frame."""
    return round(think_s * fps) / fps


def _attempt(step: int, frame: int, t_game: float, launch_s: float) -> Attempt:
    return {
        "step": step,
        "frame": frame,
        "t_game": round(t_game, 6),
        "launch_s": round(launch_s, 4),
        "end": "",
    }


def _launch(env: Recording, outcome: EpisodeOutcome) -> tuple[np.ndarray, dict[str, Any]]:
    started = time.perf_counter()
    try:
        return env.reset()
    finally:
        outcome.launch_s = time.perf_counter() - started


def _relaunch(
    env: Recording, outcome: EpisodeOutcome, recorder: EpisodeRecorder, t_game: float
) -> tuple[np.ndarray, dict[str, Any]]:
    """Start the game again after a game over (``reset_on_fail``): a new attempt."""
    started = time.perf_counter()
    try:
        frame, info = env.reset()
    except GameFailure as failure:
        raise GameFailure(
            failure.status, f"relaunch after a game over failed: {failure}", failure.frames
        ) from failure
    launch_s = time.perf_counter() - started
    outcome.attempts.append(_attempt(recorder.steps, recorder.frames, t_game, launch_s))
    return frame, info
