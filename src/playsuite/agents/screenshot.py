"""The screenshot a model is sent: the game's frame, resized when a preset asks for it.

A preset's ``image_scale`` (or a condition's ``preset.image_scale``) asks whether a model plays
better from a larger or smaller screenshot. The frame is resized once, before the prompt is
written: the prompt names the size the model sees, the model answers in that image's
coordinates, and the parser maps them back to the screen (``parse_response(image=...)``).
"""

from __future__ import annotations

import numpy as np


def scaled_size(screen: tuple[int, int], scale: float) -> tuple[int, int]:
    """The size (width, height) of the image the model sees for a ``screen`` sent at ``scale``."""
    if scale == 1:
        return screen
    return (max(1, round(screen[0] * scale)), max(1, round(screen[1] * scale)))


def resized(frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``frame`` resized to ``size`` (width, height); the frame itself when it has that size."""
    if (frame.shape[1], frame.shape[0]) == size:
        return frame
    from PIL import Image  # imported here: only a scaled preset pays for it

    return np.asarray(Image.fromarray(frame).resize(size, Image.Resampling.BILINEAR))
