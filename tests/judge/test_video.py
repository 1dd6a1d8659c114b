"""Video sampling: one frame per second of game time, at most 512x288, aspect kept."""

from __future__ import annotations

import av
import numpy as np
import pytest

from playsuite.judge.video import (
    MAX_SIZE,
    VideoError,
    encode_mp4_bytes,
    fit_size,
    sample_video,
    write_mp4,
)


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ((640, 480), (384, 288)),
        ((1920, 1080), (512, 288)),
        ((1280, 1024), (360, 288)),
        ((800, 200), (512, 128)),
        ((320, 240), (320, 240)),  # never upscaled
    ],
)
def test_fit_size_keeps_aspect_within_bounds(src, expected) -> None:
    w, h = fit_size(*src)
    assert (w, h) == expected
    assert w <= MAX_SIZE[0] and h <= MAX_SIZE[1] and w % 2 == 0 and h % 2 == 0
    assert abs(w / h - src[0] / src[1]) < 0.02


def _counter_video(path, seconds: float, fps: float, size=(640, 480), crf: int = 0) -> None:
    """Frame k is filled with grey level k (mod 256), so a sample's content tells its time."""
    n = round(seconds * fps)
    frames = (np.full((size[1], size[0], 3), k % 256, np.uint8) for k in range(n))
    write_mp4(frames, path, fps, crf=crf)


@pytest.mark.parametrize(("seconds", "fps"), [(6.5, 30.0), (7.5, 12.0), (5.0, 1.0)])
def test_one_sample_per_second_of_game_time(tmp_path, seconds, fps) -> None:
    path = tmp_path / "v.mp4"
    _counter_video(path, seconds, fps)
    s = sample_video(path)
    expected = int(np.ceil(seconds))
    assert len(s) == expected
    assert list(s.times) == [float(t) for t in range(expected)]
    assert s.size == (384, 288) and s.frames.shape == (expected, 288, 384, 3)
    assert s.duration == pytest.approx(seconds)
    # The sample at t shows the frame recorded at t (grey level = frame index).
    levels = s.frames[:, 144, 192, 0].astype(int)
    assert np.all(np.abs(levels - np.round(s.times * fps) % 256) <= 2)


@pytest.mark.slow
def test_reencoded_clip_is_one_fps_at_sample_size(tmp_path) -> None:
    path = tmp_path / "v.mp4"
    _counter_video(path, 6.0, 5.0, size=(1920, 1080), crf=30)
    s = sample_video(path)
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(encode_mp4_bytes(s))
    with av.open(str(clip)) as c:
        stream = c.streams.video[0]
        assert (stream.codec_context.width, stream.codec_context.height) == (512, 288)
        assert stream.codec_context.name == "h264"
        assert float(stream.average_rate) == 1.0
        assert sum(1 for _ in c.decode(stream)) == 6


def test_unreadable_video_is_a_clear_error(tmp_path) -> None:
    bad = tmp_path / "episode.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(VideoError, match="cannot open"):
        sample_video(bad)
