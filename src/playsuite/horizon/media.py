"""The frames one request shows, as its model server accepts them.

A preset declares what one prompt may carry (``serve.limit_mm_per_prompt`` in
config/models.yaml): play presets take a few images, the Video-LLM judges also one video. The same
annotation or question is sent either way: as up to N separate images, or as one short clip of
the same frames (:func:`~playsuite.judge.video.encode_mp4_bytes`, as the judge sends episodes).
Frames come from one decode of the episode's video at the horizon sampling rate, so an index in
a horizon file names the same picture for the annotator and for every answering preset.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from playsuite.inference.messages import user_message
from playsuite.judge.video import SampledVideo, encode_mp4_bytes, sample_video
from playsuite.records.episode import VIDEO_NAME


@dataclass(frozen=True)
class MediaPlan:
    """``kind`` ``image`` (up to ``most`` images) or ``video`` (one clip of up to ``most``
    frames); ``most`` 0: text only."""

    kind: str
    most: int

    def __post_init__(self) -> None:
        if self.kind not in ("image", "video") or self.most < 0:
            raise ValueError(f"bad media plan {self.kind!r}/{self.most}")


def media_plan(serve: Mapping[str, Any], frames: int, prefer: str = "auto") -> MediaPlan:
    """How a preset with ``serve`` settings is shown ``frames`` frames. ``prefer`` ``auto``: one
    clip where the preset takes a video (the Video-LLM judges), else images; ``image`` or
    ``video``: that kind where the preset takes it, else the other; none when it takes neither."""
    if prefer not in ("auto", "image", "video"):
        raise ValueError(f"media must be auto, image or video, not {prefer!r}")
    limits = dict(serve.get("limit_mm_per_prompt") or {})
    images = int(limits.get("image", 0) or 0)
    videos = int(limits.get("video", 0) or 0)
    if videos > 0 and (prefer in ("auto", "video") or images == 0):
        return MediaPlan("video", frames)
    if images > 0:
        return MediaPlan("image", min(frames, images))
    return MediaPlan("image", 0)


def pick(indices: Sequence[int], most: int) -> list[int]:
    """At most ``most`` of ``indices``, spread evenly, in order."""
    indices = list(indices)
    if most <= 0:
        return []
    if len(indices) <= most:
        return indices
    if most == 1:
        return [indices[len(indices) // 2]]
    step = (len(indices) - 1) / (most - 1)
    return sorted({indices[round(i * step)] for i in range(most)})


def message(text: str, sampled: SampledVideo | None, indices: Sequence[int], plan: MediaPlan):
    """The user message: the chosen frames (as ``plan`` says) before ``text``."""
    chosen = pick(indices, plan.most) if sampled is not None else []
    chosen = [i for i in chosen if 0 <= i < (len(sampled) if sampled is not None else 0)]
    if not chosen or sampled is None:
        return user_message(text)
    frames = [sampled.frames[i] for i in chosen]
    if plan.kind == "image":
        return user_message(text, images=frames)
    if len(frames) == 1:  # video encoders pair frames in time: show a still as two
        frames = frames * 2
    period = 1.0  # the clip plays its frames at 1 fps, as the judge's clips do
    clip = SampledVideo(
        times=np.arange(len(frames), dtype=np.float64) * period,
        frames=np.stack(frames),
        source_size=sampled.source_size,
        source_fps=sampled.source_fps,
        duration=len(frames) * period,
    )
    return user_message(text, videos=[encode_mp4_bytes(clip)])


class FrameCache:
    """Sampled videos of episodes, decoded once each (a few kept: questions come in episode
    order, so a small cache serves a whole question set)."""

    def __init__(self, fps: float, keep: int = 4) -> None:
        self.fps = fps
        self.keep = keep
        self._items: OrderedDict[str, SampledVideo] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, episode_dir: str | os.PathLike[str]) -> SampledVideo:
        key = str(episode_dir)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        sampled = sample_video(Path(episode_dir) / VIDEO_NAME, fps=self.fps)
        with self._lock:
            self._items[key] = sampled
            while len(self._items) > self.keep:
                self._items.popitem(last=False)
        return sampled
