"""Episodes carry a keyframe every second, so 1 fps sampling decodes keyframes only, with the
same result as decoding every frame."""

from pathlib import Path

import av
import numpy as np

from playsuite.harness.recorder import VideoWriter
from playsuite.judge.video import _sample_all_frames, _sample_keyframes, sample_video


def moving_frames(n: int) -> list[np.ndarray]:
    out = []
    for i in range(n):
        frame = np.full((240, 320, 3), 30, np.uint8)
        frame[100:140, (i * 3) % 300 : (i * 3) % 300 + 20] = (250, 200, 0)
        if i % 47 == 0:
            frame[:] = 255 - frame  # hard cuts: x264 would put keyframes here by default
        out.append(frame)
    return out


def write(path: Path, fps: float, n: int) -> Path:
    writer = VideoWriter(path, fps)
    for frame in moving_frames(n):
        writer.add(frame)
    writer.close()
    return path


def test_recorder_puts_a_keyframe_at_every_second_only(tmp_path: Path) -> None:
    path = write(tmp_path / "e.mp4", 30, 275)
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        keys = [
            round(float(p.pts * stream.time_base), 3)
            for p in container.demux(stream)
            if p.is_keyframe
        ]
    assert sorted(keys) == [float(k) for k in range(10)]


def test_keyframe_path_equals_full_decode(tmp_path: Path) -> None:
    path = write(tmp_path / "e.mp4", 30, 275)
    fast = _sample_keyframes(path, 1.0, (512, 288))
    assert fast is not None
    full = _sample_all_frames(path, 1.0, (512, 288))
    np.testing.assert_array_equal(fast.times, full.times)
    np.testing.assert_array_equal(fast.frames, full.frames)
    assert fast.duration == full.duration and fast.source_fps == full.source_fps


def test_other_layouts_fall_back_to_full_decode(tmp_path: Path) -> None:
    path = tmp_path / "default-gop.mp4"
    with av.open(str(path), mode="w") as container:  # x264 defaults: scene-cut keyframes
        stream = container.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = 320, 240, "yuv420p"
        for i, frame in enumerate(moving_frames(150)):
            video_frame = av.VideoFrame.from_ndarray(frame, format="rgb24")
            video_frame.pts = i
            for packet in stream.encode(video_frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    assert _sample_keyframes(path, 1.0, (512, 288)) is None
    sampled = sample_video(path)
    assert len(sampled) == 5 and sampled.times.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    # 2 fps on a 1 s keyframe grid cannot come from keyframes alone
    assert _sample_keyframes(write(tmp_path / "e.mp4", 30, 90), 2.0, (512, 288)) is None
