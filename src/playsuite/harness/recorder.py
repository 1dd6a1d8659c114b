"""Writing an episode directory: game-time video, action trace, metadata.

Every file is written under a temporary name and renamed when complete, and ``meta.json`` is
written last: its presence means the episode finished (with whatever status), which is what the
workflow and the node runner test before skipping a game on a rerun.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from types import TracebackType
from typing import Any

import av
import numpy as np

from playsuite.files import write_json_atomic

VIDEO_NAME = "episode.mp4"
TRACE_NAME = "trace.jsonl"
META_NAME = "meta.json"


def episode_finished(out_dir: str | os.PathLike[str]) -> bool:
    """True when ``out_dir`` holds a complete episode (``meta.json`` is written last)."""
    return (Path(out_dir) / META_NAME).is_file()


def clean_partial(out_dir: Path) -> None:
    """Remove what an interrupted run left (temporary files; unfinished outputs)."""
    if not out_dir.is_dir():
        return
    for child in out_dir.iterdir():
        if child.name.startswith(".") and child.is_file():
            child.unlink()
    if not episode_finished(out_dir):
        for name in (VIDEO_NAME, TRACE_NAME):
            (out_dir / name).unlink(missing_ok=True)


class VideoWriter:
    """H.264 (yuv420p) video of game time: frame ``i`` is shown at ``i / fps`` seconds."""

    def __init__(self, path: Path, fps: float, crf: int = 23, preset: str = "veryfast") -> None:
        self.path = path
        self.fps = fps
        self.crf = crf
        self.preset = preset
        self.frames = 0
        self._container: Any = None
        self._stream: Any = None
        self._size: tuple[int, int] | None = None

    def _open(self, width: int, height: int) -> None:
        from fractions import Fraction

        self._container = av.open(str(self.path), mode="w", format="mp4")
        rate = Fraction(self.fps).limit_denominator(1000)
        stream = self._container.add_stream("libx264", rate=rate)
        # yuv420p needs even dimensions: frames are padded by one pixel where needed.
        stream.width = width + (width % 2)
        stream.height = height + (height % 2)
        stream.pix_fmt = "yuv420p"
        stream.codec_context.time_base = Fraction(1, 1) / rate
        options = {"crf": str(self.crf), "preset": self.preset}
        if float(self.fps).is_integer():
            # A keyframe at every whole second of game time (and nowhere else): the judges'
            # 1 fps sampling then decodes keyframes only (judge.video.sample_video).
            gop = int(self.fps)
            options["x264-params"] = f"keyint={gop}:min-keyint={gop}:scenecut=0"
        stream.options = options
        self._stream = stream
        self._size = (width, height)

    def add(self, frame: np.ndarray) -> None:
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"video frames must be H×W×3 uint8, got {frame.shape} {frame.dtype}")
        height, width = frame.shape[:2]
        if self._container is None:
            self._open(width, height)
        if (width, height) != self._size:
            raise ValueError(f"frame size changed from {self._size} to {(width, height)}")
        if width % 2 or height % 2:
            frame = np.pad(frame, ((0, height % 2), (0, width % 2), (0, 0)), mode="edge")
        video_frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
        video_frame.pts = self.frames
        for packet in self._stream.encode(video_frame):
            self._container.mux(packet)
        self.frames += 1

    def close(self) -> None:
        if self._container is None:
            return
        for packet in self._stream.encode():
            self._container.mux(packet)
        self._container.close()
        self._container = None


class EpisodeRecorder:
    """Collects one episode's frames, steps and metadata into its directory, atomically.

    Video and trace grow under hidden ``.NAME.partial`` names; :meth:`finish` renames them into
    place and writes ``meta.json`` last. :meth:`abort` (or an exception in the ``with`` block)
    deletes them, so an interrupted run leaves nothing that looks finished.
    """

    def __init__(self, out_dir: str | os.PathLike[str], fps: float) -> None:
        self.out_dir = Path(out_dir)
        self.fps = fps
        clean_partial(self.out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._video_tmp = self.out_dir / f".{VIDEO_NAME}.partial"
        self._trace_tmp = self.out_dir / f".{TRACE_NAME}.partial"
        self.video = VideoWriter(self._video_tmp, fps)
        self._trace = open(self._trace_tmp, "w", encoding="utf-8")  # noqa: SIM115
        self.steps = 0

    @property
    def frames(self) -> int:
        return self.video.frames

    def add_frames(self, frames: list[np.ndarray]) -> None:
        for frame in frames:
            self.video.add(frame)

    def add_step(self, record: dict[str, Any]) -> None:
        self._trace.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._trace.flush()
        self.steps += 1

    def finish(self, meta: dict[str, Any]) -> None:
        """Close the video and trace, rename them into place, then write ``meta.json`` last.

        A run that never produced a frame (a launch failure) has no video file.
        """
        self.video.close()
        self._trace.close()
        if self.video.frames:
            _fsync_replace(self._video_tmp, self.out_dir / VIDEO_NAME)
        else:
            self._video_tmp.unlink(missing_ok=True)
        _fsync_replace(self._trace_tmp, self.out_dir / TRACE_NAME)
        write_json_atomic(self.out_dir / META_NAME, meta)

    def abort(self) -> None:
        """Drop everything unfinished (used when the harness itself is interrupted)."""
        with contextlib.suppress(Exception):
            self.video.close()
        self._trace.close()
        self._video_tmp.unlink(missing_ok=True)
        self._trace_tmp.unlink(missing_ok=True)

    def __enter__(self) -> EpisodeRecorder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None:
            self.abort()


def _fsync_replace(tmp: Path, target: Path) -> None:
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, target)
