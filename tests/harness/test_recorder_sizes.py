"""One episode video keeps one size: a game that replaces its window by a smaller or larger one
(playsuite.runtimes.native_display) goes on in the video fitted into the first size."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np

from playsuite.harness.recorder import VideoWriter, letterboxed


def test_a_frame_of_another_size_is_letterboxed_into_the_video(tmp_path: Path) -> None:
    writer = VideoWriter(tmp_path / "v.mp4", 10.0)
    writer.add(np.full((48, 64, 3), 255, dtype=np.uint8))
    writer.add(np.full((32, 32, 3), 255, dtype=np.uint8))  # the game's new, square window
    writer.add(np.full((96, 128, 3), 255, dtype=np.uint8))  # same aspect, larger
    writer.close()
    assert writer.frames == 3 and writer.letterboxed == 2
    with av.open(str(tmp_path / "v.mp4")) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    assert [f.shape for f in frames] == [(48, 64, 3)] * 3
    square = frames[1]
    assert square[:, :4].max() < 40 and square[:, -4:].max() < 40  # black bars left and right
    assert square[20:28, 28:36].min() > 200  # the picture in the middle


def test_letterboxing_keeps_the_aspect() -> None:
    tall = np.full((100, 50, 3), 200, dtype=np.uint8)
    out = letterboxed(tall, (200, 100))
    assert out.shape == (100, 200, 3)
    assert out[:, 75:125].min() == 200 and out[:, :70].max() == 0 and out[:, 130:].max() == 0
