"""Writing an episode directory: game-time video, action trace, metadata.

The files and their content are the contract of playsuite.records.episode; this module records
them.

An episode is recorded into a private staging folder beside its directory, named after the
recording process (``.GAME.pid1234-abcd1234.partial``), and the finished folder, ``meta.json``
included, is renamed onto the episode directory in one step. Its ``meta.json`` therefore means
the episode finished (with whatever status), which is what the workflow and the node runner test
before skipping a game on a rerun, and an episode directory only ever holds the files of one
recording: two processes that play the same game (a killed snakemake's orphan and its rerun)
cannot rename each other's temporary files, and the second to finish is refused instead of
mixing its files into the first one's folder.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

import av
import numpy as np

from playsuite.files import publish_dir, require_free_space
from playsuite.records.episode import (
    GAME_LOG_MAX_BYTES,
    GAME_LOG_NAMES,
    TRACE_NAME,
    VIDEO_NAME,
    episode_finished,
    trace_line,
    write_meta,
)

#: Named in the error when the disk is too full to start a video (config and command line).
FREE_SPACE_SETTING = "setting play.min_free_mb, option --min-free-mb"


def clean_partial(out_dir: Path) -> None:
    """Remove what an interrupted run left (temporary files; unfinished outputs)."""
    if not out_dir.is_dir():
        return
    for child in out_dir.iterdir():
        if child.name.startswith(".") and child.is_file():
            child.unlink()
    if not episode_finished(out_dir):
        for name in (VIDEO_NAME, TRACE_NAME, *GAME_LOG_NAMES):
            (out_dir / name).unlink(missing_ok=True)


#: A staging folder's name: ``.{episode folder name}.pid{pid}-{random}.partial``.
_STAGING = re.compile(r"^\.(?P<episode>.+)\.pid\d+-[a-z0-9_]+\.partial$")


def staging_episode(name: str) -> str | None:
    """The episode folder name a staging folder called ``name`` records, or None."""
    match = _STAGING.match(name)
    return match["episode"] if match else None


def staging_leftovers(out_dir: Path) -> list[Path]:
    """Staging folders that earlier recordings of this episode left beside it (killed runs).

    Only a caller that holds the shard's lock may delete them: then no live process owns one.
    """
    try:
        return sorted(
            p for p in out_dir.parent.iterdir() if staging_episode(p.name) == out_dir.name
        )
    except OSError:
        return []


def letterboxed(frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``frame`` scaled to fit ``size`` (width, height) with its aspect kept, centred on black."""
    from PIL import Image

    width, height = size
    scale = min(width / frame.shape[1], height / frame.shape[0])
    fitted = (max(1, round(frame.shape[1] * scale)), max(1, round(frame.shape[0] * scale)))
    image = Image.fromarray(frame).resize(fitted, Image.Resampling.BILINEAR)
    canvas = np.zeros((height, width, 3), dtype=np.uint8)
    left, top = (width - fitted[0]) // 2, (height - fitted[1]) // 2
    canvas[top : top + fitted[1], left : left + fitted[0]] = np.asarray(image)
    return canvas


class VideoWriter:
    """H.264 (yuv420p) video of game time: frame ``i`` is shown at ``i / fps`` seconds."""

    def __init__(self, path: Path, fps: float, crf: int = 23, preset: str = "veryfast") -> None:
        self.path = path
        self.fps = fps
        self.crf = crf
        self.preset = preset
        self.frames = 0
        # Frames of another size (a game that replaced its window by a smaller or larger one),
        # fitted into the video's size with black bars: one video keeps one size.
        self.letterboxed = 0
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
            frame = letterboxed(frame, self._size)
            height, width = frame.shape[:2]
            self.letterboxed += 1
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

    Video and trace grow in a staging folder of this process; :meth:`finish` writes ``meta.json``
    there and renames the folder onto the (empty) episode directory. :meth:`abort` (or an
    exception in the ``with`` block) deletes the staging folder, so an interrupted run leaves
    nothing that looks finished. ``min_free_bytes``: the free space checked when recording starts
    and again before the video file is opened.
    """

    def __init__(
        self, out_dir: str | os.PathLike[str], fps: float, min_free_bytes: int = 0
    ) -> None:
        self.out_dir = Path(out_dir)
        self.fps = fps
        self.min_free_bytes = min_free_bytes
        clean_partial(self.out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        require_free_space(self.out_dir, min_free_bytes, FREE_SPACE_SETTING)
        self.staging = Path(
            tempfile.mkdtemp(
                prefix=f".{self.out_dir.name}.pid{os.getpid()}-",
                suffix=".partial",
                dir=self.out_dir.parent,
            )
        )
        os.chmod(self.staging, 0o755)  # it becomes the episode directory: meant to be shared
        self._video_tmp = self.staging / VIDEO_NAME
        self._trace_tmp = self.staging / TRACE_NAME
        self.video = VideoWriter(self._video_tmp, fps)
        try:
            self._trace = open(self._trace_tmp, "w", encoding="utf-8")  # noqa: SIM115
        except BaseException:
            shutil.rmtree(self.staging, ignore_errors=True)
            raise
        self.steps = 0

    @property
    def frames(self) -> int:
        return self.video.frames

    def add_frames(self, frames: list[np.ndarray]) -> None:
        if frames and self.video.frames == 0:
            # The encoder opens its file with the first frame; on a full disk it may crash the
            # process instead of raising, so the space is checked first.
            require_free_space(self.out_dir, self.min_free_bytes, FREE_SPACE_SETTING)
        for frame in frames:
            self.video.add(frame)

    def add_step(self, record: dict[str, Any]) -> None:
        self._trace.write(trace_line(record))
        self._trace.flush()
        self.steps += 1

    def keep_logs(self, workdir: str | os.PathLike[str]) -> list[str]:
        """Copy the game's logs (:data:`GAME_LOG_NAMES`) out of the run's working directory,
        which the worker deletes after the episode; the names of those kept. Call it once the
        game is stopped, so its log is complete."""
        kept = []
        for name in GAME_LOG_NAMES:
            source = Path(workdir) / name
            if source.is_file():
                copy_bounded(source, self.staging / name, GAME_LOG_MAX_BYTES)
                kept.append(name)
        return kept

    def finish(self, meta: dict[str, Any]) -> None:
        """Close the video and trace, write ``meta.json`` beside them, then move the staging
        folder onto the episode directory (:class:`~playsuite.files.DirectoryTaken` if another
        recording got there first: its folder is kept whole and this one dropped).

        A run that never produced a frame (a launch failure) has no video file.
        """
        try:
            self.video.close()
            self._trace.close()
            if self.video.frames:
                _fsync(self._video_tmp)
            else:
                self._video_tmp.unlink(missing_ok=True)
            _fsync(self._trace_tmp)
            write_meta(self.staging, meta)  # checked against the contract first
            publish_dir(self.staging, self.out_dir)
        except BaseException:
            shutil.rmtree(self.staging, ignore_errors=True)
            raise

    def abort(self) -> None:
        """Drop everything unfinished (used when the harness itself is interrupted)."""
        with contextlib.suppress(Exception):
            self.video.close()
        self._trace.close()
        shutil.rmtree(self.staging, ignore_errors=True)

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


def copy_bounded(source: Path, target: Path, max_bytes: int) -> None:
    """Copy ``source`` to ``target``, or, when it is larger than ``max_bytes``, its first and
    last ``max_bytes // 2`` bytes (cut at line ends where there are some) with a line between
    them saying how much was left out: a game that prints every frame must not fill the disk,
    and what went wrong is usually at the start or at the end."""
    size = source.stat().st_size
    with open(source, "rb") as src, open(target, "wb") as out:
        if size <= max_bytes:
            shutil.copyfileobj(src, out)
            return
        half = max_bytes // 2
        head = src.read(half)
        head = head[: head.rfind(b"\n") + 1] or head
        src.seek(size - half)
        tail = src.read(half)
        tail = tail[tail.find(b"\n") + 1 :] or tail
        left_out = size - len(head) - len(tail)
        note = (
            f"[playsuite: this log had {size} bytes; {left_out} bytes in the middle were left "
            f"out, the first {len(head)} and the last {len(tail)} are kept]\n"
        )
        out.write(head + (b"" if head.endswith(b"\n") else b"\n") + note.encode() + tail)


def _fsync(path: Path) -> None:
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())
