"""Sampling an episode video for judging: one frame per second of game time, at most 512x288.

Both judges look at the same samples: the Video-LLM judge receives them re-encoded as a 1 fps
H.264 clip, the local frame judge computes its features from them. Sampling by presentation time
(not by frame count) keeps it right for any recording rate; frames are scaled inside PyAV's
decoder (``to_ndarray(width=, height=)``) so full-size RGB frames are never materialised.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np

from playsuite.files import atomic_path

#: The paper's judge input: 1 frame per second, each at most 512x288 pixels.
SAMPLE_FPS = 1.0
MAX_SIZE = (512, 288)


class VideoError(ValueError):
    """A video that cannot be opened or holds no frames."""


def fit_size(width: int, height: int, max_size: tuple[int, int] = MAX_SIZE) -> tuple[int, int]:
    """Largest size within ``max_size`` with the source's aspect ratio; never upscales.

    Sides are rounded down to even numbers because H.264 in yuv420p needs them (the aspect ratio
    moves by at most one pixel).
    """
    if width <= 0 or height <= 0:
        raise VideoError(f"invalid frame size {width}x{height}")
    scale = min(1.0, max_size[0] / width, max_size[1] / height)
    w = max(2, int(width * scale) // 2 * 2)
    h = max(2, int(height * scale) // 2 * 2)
    return w, h


@dataclass(frozen=True)
class SampledVideo:
    """Frames sampled from a video: ``frames[i]`` shows game time ``times[i]`` seconds."""

    times: np.ndarray  # (N,) float seconds
    frames: np.ndarray  # (N, H, W, 3) uint8 RGB
    source_size: tuple[int, int]  # (width, height) of the recording
    source_fps: float
    duration: float  # seconds of game time in the recording

    def __len__(self) -> int:
        return len(self.times)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the samples."""
        return int(self.frames.shape[2]), int(self.frames.shape[1])


def _sample_keyframes(
    path: str | os.PathLike[str], fps: float, max_size: tuple[int, int]
) -> SampledVideo | None:
    """The same samples, decoding keyframes only, when the video has a keyframe at every sample
    time and nowhere else (episodes written by the harness's recorder do). ``None`` otherwise,
    and the caller decodes every frame: the result never depends on which path ran."""
    try:
        container = av.open(str(path))
    except (av.FFmpegError, OSError):
        return None
    with container:
        if not container.streams.video:
            return None
        stream = container.streams.video[0]
        rate = float(stream.average_rate or 0)
        n_frames = int(stream.frames or 0)
        period = 1.0 / fps
        per_sample = rate * period
        if not n_frames or not rate or abs(per_sample - round(per_sample)) > 1e-9:
            return None
        expected = math.ceil(n_frames / per_sample - 1e-9)
        src_w, src_h = stream.codec_context.width, stream.codec_context.height
        w, h = fit_size(src_w, src_h, max_size)
        stream.codec_context.skip_frame = "NONKEY"
        eps = 0.25 / rate
        frames: list[np.ndarray] = []
        try:
            for frame in container.decode(stream):
                if frame.time is None:
                    return None
                t = float(frame.time)
                if abs(t - len(frames) * period) > eps:
                    return None  # a keyframe off the sample grid, or a sample time without one
                frames.append(frame.to_ndarray(format="rgb24", width=w, height=h))
        except av.FFmpegError:
            return None
    if len(frames) != expected:
        return None
    return SampledVideo(
        times=np.round(np.arange(expected) * period, 6),
        frames=np.stack(frames),
        source_size=(src_w, src_h),
        source_fps=rate,
        duration=n_frames / rate,
    )


def sample_video(
    path: str | os.PathLike[str], fps: float = SAMPLE_FPS, max_size: tuple[int, int] = MAX_SIZE
) -> SampledVideo:
    """Decode ``path`` once, keeping the first frame at or after each multiple of ``1/fps`` s.

    A video of duration D yields ``ceil(D * fps)`` samples at t = 0, 1/fps, 2/fps, ... (the frame
    shown at that game time). Raises :class:`VideoError` for an unreadable or empty video.
    """
    if fps <= 0:
        raise ValueError("sampling rate must be positive")
    fast = _sample_keyframes(path, fps, max_size)
    return fast if fast is not None else _sample_all_frames(path, fps, max_size)


def _sample_all_frames(
    path: str | os.PathLike[str], fps: float, max_size: tuple[int, int]
) -> SampledVideo:
    try:
        container = av.open(str(path))
    except (av.FFmpegError, OSError) as exc:
        raise VideoError(f"{path}: cannot open video: {exc}") from None
    with container:
        if not container.streams.video:
            raise VideoError(f"{path}: no video stream")
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        src_w, src_h = stream.codec_context.width, stream.codec_context.height
        w, h = fit_size(src_w, src_h, max_size)
        rate = float(stream.average_rate or stream.base_rate or 0) or 30.0
        period = 1.0 / fps
        times: list[float] = []
        frames: list[np.ndarray] = []
        next_t = 0.0
        last_t = 0.0
        eps = 0.25 / rate  # timestamps of constant-rate video are exact up to rounding
        try:
            for frame in container.decode(stream):
                t = float(frame.time) if frame.time is not None else frame.index / rate
                last_t = max(last_t, t)
                if t + eps < next_t:
                    continue
                times.append(round(next_t, 6))
                frames.append(frame.to_ndarray(format="rgb24", width=w, height=h))
                next_t = (math.floor((t + eps) / period) + 1) * period
        except av.FFmpegError as exc:
            raise VideoError(f"{path}: cannot decode video: {exc}") from None
    if not frames:
        raise VideoError(f"{path}: video holds no frames")
    duration = last_t + 1.0 / rate
    return SampledVideo(
        times=np.asarray(times, dtype=np.float64),
        frames=np.stack(frames),
        source_size=(src_w, src_h),
        source_fps=rate,
        duration=duration,
    )


def _encode(frames: Iterable[np.ndarray], target: str | io.BytesIO, fps: float, crf: int) -> int:
    n = 0
    with av.open(target, mode="w", format="mp4") as out:
        stream = None
        for frame in frames:
            if stream is None:
                stream = out.add_stream("libx264", rate=round(fps) if fps >= 1 else fps)
                stream.width, stream.height = frame.shape[1], frame.shape[0]
                stream.pix_fmt = "yuv420p"
                stream.options = {"crf": str(crf), "preset": "veryfast"}
            video_frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
            for packet in stream.encode(video_frame):
                out.mux(packet)
            n += 1
        if stream is None:
            raise VideoError("no frames to encode")
        for packet in stream.encode():
            out.mux(packet)
    return n


def write_mp4(
    frames: Iterable[np.ndarray], path: str | os.PathLike[str], fps: float, crf: int = 23
) -> int:
    """Encode RGB frames (H×W×3 uint8, even sides) as H.264 MP4, atomically; returns the count."""
    with atomic_path(Path(path), suffix=".mp4") as tmp:
        return _encode(frames, str(tmp), fps, crf)


def encode_mp4_bytes(sampled: SampledVideo, crf: int = 23) -> bytes:
    """The samples as an in-memory H.264 MP4 at the sampling rate (the judge model's input)."""
    fps = 1.0 / float(np.median(np.diff(sampled.times))) if len(sampled) > 1 else SAMPLE_FPS
    buf = io.BytesIO()
    _encode(iter(sampled.frames), buf, fps, crf)
    return buf.getvalue()
