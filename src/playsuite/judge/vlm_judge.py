"""The Video-LLM judge (the paper's protocol) over an OpenAI-compatible server on a Unix socket.

Per episode: the video is sampled at 1 fps, each frame at most 512x288 (:mod:`.video`), and the
samples are re-encoded as a 1 fps H.264 clip sent inline as a ``video_url`` data URL, so the
server needs no access to episode files and judges exactly the frames chosen here (the server
runs with ``--media-io-kwargs '{"video": {"num_frames": -1}}'`` so that vLLM keeps every frame
instead of re-sampling 32). The prompt (``config/prompts/judge_milestones.txt``) carries the game
context (:mod:`.context`). Decoding is constrained to the milestone JSON Schema through
``response_format`` (``json_schema``), at temperature 0 with seed 41 and at most 16,384 generated
tokens (the judge preset's ``sampling``). Every answer is validated against the schema; an
invalid one is asked again up to ``attempts`` times, then recorded as a failed judgement with the
error, never as level 0.

Throughput: episodes are prepared (decoded, resized, re-encoded) on a small thread pool ahead of
the requests, up to ``prefetch`` episodes in advance, while up to ``concurrency`` requests are in
flight, so the GPU never waits for video decoding (``prefetch=0`` turns this off: an episode is
prepared only once a request slot is free for it, as benchmarks/engine_judge_prefetch.py does to
measure the gain).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from string import Template
from typing import Any

from playsuite.inference.client import InferenceClient, InferenceError, InvalidJSONAnswer
from playsuite.inference.messages import user_message, video_data_url
from playsuite.judge.episode import Episode
from playsuite.judge.result import FAILED, corrupt_video, failed, judgement, unjudgeable_video
from playsuite.judge.schema import MilestoneError, milestone_schema
from playsuite.judge.video import SampledVideo, VideoError, encode_mp4_bytes, sample_video

#: Sampling of the paper's judge runs (used when a preset's ``sampling`` leaves a field out).
JUDGE_SAMPLING: dict[str, Any] = {"temperature": 0.0, "seed": 41, "max_tokens": 16384}


@dataclass(frozen=True)
class JudgeRequest:
    """Everything one judge request needs, built ahead of time (the prefetched unit)."""

    key: str
    messages: list[dict[str, Any]]
    frames: int
    duration: float
    sample_size: tuple[int, int]
    video_bytes: int
    prepare_s: float


@dataclass(frozen=True)
class JudgeItem:
    """One episode to judge: its key (for the caller), the episode, and its game context."""

    key: str
    episode: Episode
    context: str


@dataclass
class VLMJudge:
    """A Video-LLM judge bound to a client (one server) and a prompt template."""

    name: str
    client: InferenceClient
    prompt: Template
    sampling: dict[str, Any] = field(default_factory=dict)
    attempts: int = 3
    extra_body: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("attempts must be >= 1")
        self.sampling = {**JUDGE_SAMPLING, **self.sampling}

    # -- one episode ----------------------------------------------------------------------------

    def prepare(self, item: JudgeItem) -> JudgeRequest:
        """Decode, sample and re-encode the episode's video; build the chat messages."""
        from playsuite.judge.context import render_prompt

        t0 = time.perf_counter()
        sampled: SampledVideo = sample_video(item.episode.video_path)
        clip = encode_mp4_bytes(sampled)
        text = render_prompt(self.prompt, item.context, len(sampled), sampled.duration)
        message = user_message(text, videos=[video_data_url(clip)])
        return JudgeRequest(
            key=item.key,
            messages=[message],
            frames=len(sampled),
            duration=sampled.duration,
            sample_size=sampled.size,
            video_bytes=len(clip),
            prepare_s=time.perf_counter() - t0,
        )

    def ask(self, request: JudgeRequest) -> dict[str, Any]:
        """Send a prepared request; a schema-valid answer becomes a judgement, else a failure."""
        info = {
            "frames": request.frames,
            "duration_s": round(request.duration, 3),
            "sample_size": list(request.sample_size),
            "prepare_s": round(request.prepare_s, 3),
        }
        try:
            answer = self.client.chat_json(
                request.messages,
                milestone_schema(),
                name="milestones",
                json_attempts=self.attempts,
                extra_body=self.extra_body or None,
                temperature=self.sampling.get("temperature"),
                seed=self.sampling.get("seed"),
                max_tokens=self.sampling.get("max_tokens"),
            )
        except InvalidJSONAnswer as exc:
            return failed(
                self.name,
                FAILED,
                str(exc),
                attempts=self.attempts,
                last_answer=exc.text[:2000],
                **info,
            )
        except InferenceError as exc:
            return failed(self.name, FAILED, f"inference failed: {exc}", **info)
        try:
            out = judgement(answer.value, self.name, **info)
        except MilestoneError as exc:  # the client validated already; kept for a changed schema
            return failed(self.name, FAILED, f"invalid milestones: {exc}", **info)
        out.update(
            attempts=answer.json_attempts,
            usage=answer.result.usage,
            latency_s=round(answer.result.latency_s, 3),
        )
        return out

    def judge(self, item: JudgeItem) -> dict[str, Any]:
        """Prepare and ask for one episode (``no_video`` / ``corrupt_video`` without a video)."""
        prepared = self._prepare_or_fail(item)
        return prepared if isinstance(prepared, dict) else self.ask(prepared)

    def _prepare_or_fail(self, item: JudgeItem) -> JudgeRequest | dict[str, Any]:
        """The request for an episode, or its judgement when its video cannot be judged."""
        if (unjudgeable := unjudgeable_video(self.name, item.episode)) is not None:
            return unjudgeable
        try:
            return self.prepare(item)
        except VideoError as exc:
            return corrupt_video(self.name, exc)

    # -- many episodes --------------------------------------------------------------------------

    def judge_many(
        self,
        items: Iterable[JudgeItem],
        *,
        concurrency: int | None = None,
        prefetch: int | None = None,
        prepare_workers: int = 2,
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Judge ``items``, overlapping preparation with inference; yields in completion order.

        ``concurrency`` requests are in flight at once (default: the client's cap, i.e. the
        server's batch); at most ``prefetch`` more episodes (default: ``concurrency``) are
        prepared ahead of them, which bounds memory. ``prefetch=0``: no episode is prepared before
        a request slot is free for it. Every item yields exactly one judgement.
        """
        concurrency = concurrency or self.client.max_concurrency
        prefetch = concurrency if prefetch is None else prefetch
        if prefetch < 0:
            raise ValueError(f"prefetch must be >= 0, got {prefetch}")
        window = threading.BoundedSemaphore(concurrency + prefetch)
        results: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()

        def run_request(key: str, fut: Future[JudgeRequest | dict[str, Any]]) -> None:
            try:
                prepared = fut.result()
                out = prepared if isinstance(prepared, dict) else self.ask(prepared)
            except Exception as exc:  # recorded, never lost: one bad episode must not stop a shard
                out = failed(self.name, FAILED, f"{type(exc).__name__}: {exc}")
            finally:
                window.release()
            results.put((key, out))

        submitted = yielded = 0
        with (
            ThreadPoolExecutor(prepare_workers, thread_name_prefix="judge-prep") as prep,
            ThreadPoolExecutor(concurrency, thread_name_prefix="judge-ask") as ask,
        ):
            for item in items:
                window.acquire()
                ask.submit(run_request, item.key, prep.submit(self._prepare_or_fail, item))
                submitted += 1
                while not results.empty():
                    yielded += 1
                    yield results.get()
            while yielded < submitted:
                yielded += 1
                yield results.get()
