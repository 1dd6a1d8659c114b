"""Doubles for the episode loop: a scripted game runtime and a scripted policy.

They let a test run :func:`playsuite.harness.episode.run_episode` (or a
:class:`~playsuite.runtimes.env.GameEnv`) in milliseconds, with no game process, no sandbox and
no model server, while still going through the real agent, parser, recorder and wrappers.

* :class:`FakeRuntime` shows a frame whose brightness is its game time (so the screen changes
  while time moves), answers probes, and on request fails to launch, quits, crashes or hangs at
  a given step, as a real runtime reports it (:class:`GameFailure` with the frames so far).
* :class:`FakePolicy` answers scripted texts and keeps every :class:`StepRequest` it was asked,
  so a test can check what the model would have seen (history, prompt, time left).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from playsuite.actions import Action
from playsuite.agents.policy import PolicyReply, StepRequest
from playsuite.corpus import GameEntry
from playsuite.inference.client import InferenceRequestError
from playsuite.runtimes.base import (
    GameExited,
    GameFailure,
    Observation,
    RunStatus,
    Runtime,
    RuntimeOptions,
    frames_per_slice,
)


@dataclass
class FakeGame:
    """What a :class:`FakeRuntime` does. Step numbers count ``act`` calls from 0.

    ``crash_at``: that step's ``act`` raises ``crashed`` after half its frames; ``hang_at``: it
    waits out the slice limit the runtime is given (``slice_timeout_s``), then raises
    ``timeout``; ``exit_at``: the game quits (status ``ok``) after half its frames;
    ``launch_fails``: ``start`` raises ``launch_failed``; ``still``: the screen never changes;
    ``observe_bug_at``: the ``observe`` after that step's (complete) ``act`` raises a plain
    ``RuntimeError``, standing for a bug of ours rather than a failure of the game;
    ``game_over_at``: from that many ``act`` calls of one launch on, its ``game_over`` probe is
    true (the game goes on showing its game-over screen; a relaunch starts again at 0).
    """

    screen: tuple[int, int] = (64, 48)
    crash_at: int | None = None
    hang_at: int | None = None
    exit_at: int | None = None
    launch_fails: bool = False
    still: bool = False
    observe_bug_at: int | None = None
    game_over_at: int | None = None


@dataclass
class FakeRecord:
    """What happened to the runtimes a factory made (shared by all of them)."""

    acts: list[tuple[list[Action], float]] = field(default_factory=list)
    started: int = 0
    closed: int = 0
    options: list[RuntimeOptions] = field(default_factory=list)


class FakeRuntime(Runtime):
    """A scripted game (:class:`FakeGame`) that follows the runtime contract.

    ``act`` returns ``frames_per_slice(seconds, video_fps)`` frames at evenly spaced game times;
    each frame's pixels are ``int(10 * t) % 256`` for its game time ``t``; ``probes`` reports
    ``{"t": game time, "steps": acts so far}``, and ``game_over`` when the script sets
    ``game_over_at``.
    """

    def __init__(
        self,
        game: GameEntry,
        options: RuntimeOptions,
        script: FakeGame | None = None,
        record: FakeRecord | None = None,
    ) -> None:
        super().__init__(game, options)
        self.script = script or FakeGame()
        self.record = record or FakeRecord()
        self.record.options.append(options)
        self.t = 0.0
        self.steps = 0

    @property
    def screen_size(self) -> tuple[int, int]:
        return self.script.screen

    def frame_at(self, t: float) -> np.ndarray:
        width, height = self.script.screen
        value = 0 if self.script.still else int(10 * t) % 256
        return np.full((height, width, 3), value, dtype=np.uint8)

    def start(self) -> Observation:
        if self.script.launch_fails:
            raise GameFailure(RunStatus.LAUNCH_FAILED, "the fake game never rendered")
        self.record.started += 1
        return self.observe()

    def observe(self) -> Observation:
        if self.script.observe_bug_at is not None and self.steps == self.script.observe_bug_at + 1:
            raise RuntimeError(f"a bug while observing after step {self.script.observe_bug_at}")
        return Observation(self.frame_at(self.t), self.t, self.probes())

    def act(self, actions: list[Action], seconds: float) -> list[np.ndarray]:
        step = self.steps
        self.steps += 1
        self.record.acts.append((list(actions), seconds))
        count = frames_per_slice(seconds, self.video_fps)
        frames = [self.frame_at(self.t + seconds * (i + 1) / count) for i in range(count)]
        half = frames[: count // 2]
        if step == self.script.crash_at:
            raise GameFailure(RunStatus.CRASHED, f"the fake game crashed at step {step}", half)
        if step == self.script.exit_at:
            raise GameExited(f"the fake game quit at step {step}", half)
        if step == self.script.hang_at:
            time.sleep(self.options.slice_timeout_s)
            raise GameFailure(
                RunStatus.TIMEOUT,
                f"the fake game hung at step {step} ({self.options.slice_timeout_s} s)",
                half,
            )
        self.t += seconds
        return frames

    def probes(self) -> dict[str, Any]:
        probes: dict[str, Any] = {"t": round(self.t, 6), "steps": self.steps}
        if self.script.game_over_at is not None:
            probes["game_over"] = self.steps >= self.script.game_over_at
        return probes

    def close(self) -> None:
        self.record.closed += 1


def fake_runtimes(script: FakeGame | None = None) -> tuple[Any, FakeRecord]:
    """A runtime factory for ``run_episode``/``GameEnv`` and the record its runtimes share."""
    record = FakeRecord()

    def make(game: GameEntry, options: RuntimeOptions) -> FakeRuntime:
        return FakeRuntime(game, options, script, record)

    return make, record


class FakePolicy:
    """Answers ``replies`` in turn (the last one repeats) and keeps every request.

    ``refuse_at``: that step raises :class:`InferenceRequestError` (the server refused the
    request); ``fail_at``: it raises ``ConnectionError`` (the server is gone). ``latency_s`` is
    the latency it reports, without waiting; ``wait_s`` a time it really takes to answer (a
    slow model, for the real-time protocol).
    """

    def __init__(
        self,
        replies: Sequence[str] = ("Observation: a screen.\nReasoning: wait.\nAction: wait",),
        *,
        name: str = "fake",
        latency_s: float = 0.25,
        refuse_at: int | None = None,
        fail_at: int | None = None,
        info: dict[str, Any] | None = None,
        wait_s: float = 0.0,
    ) -> None:
        if not replies:
            raise ValueError("a fake policy needs at least one reply")
        self.name = name
        self.replies = list(replies)
        self.latency_s = latency_s
        self.refuse_at = refuse_at
        self.fail_at = fail_at
        self.info = dict(info or {})
        self.wait_s = wait_s
        self.requests: list[StepRequest] = []

    def act(self, request: StepRequest) -> PolicyReply:
        self.requests.append(request)
        if request.step == self.refuse_at:
            raise InferenceRequestError(400, "too many images in the request")
        if request.step == self.fail_at:
            raise ConnectionError("the fake model server is gone")
        if self.wait_s:
            time.sleep(self.wait_s)
        text = self.replies[min(request.step, len(self.replies) - 1)]
        return PolicyReply(text, self.latency_s, request.screen, dict(self.info))


class RecordingChatClient:
    """Stands in for :class:`~playsuite.inference.client.InferenceClient` under a served policy:
    it keeps the messages of every chat request and answers each with the same ``answer`` text,
    so a test can check what the model would have been sent (images, prompt, system part)."""

    timeout_s = 30.0

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.requests: list[list[dict[str, Any]]] = []

    def chat(self, messages: Sequence[dict[str, Any]], **_: Any) -> Any:
        from types import SimpleNamespace

        self.requests.append(list(messages))
        return SimpleNamespace(
            text=self.answer, usage={}, finish_reason="stop", attempts=1, retries=()
        )
