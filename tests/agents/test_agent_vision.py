"""Frame analysis: text-like regions on drawn frames, and screen-change detection."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from playsuite.agents.vision import changed_fraction, screen_changed, text_regions
from tests.agents.frames import font, menu_frame, shapes_frame, styled_buttons_frame


def test_button_label_is_found_and_distractors_are_not():
    frame, (x0, y0, x1, y1) = menu_frame()
    regions = text_regions(frame)
    assert regions
    inside = [r for r in regions if x0 <= r.center[0] < x1 and y0 <= r.center[1] < y1]
    assert inside, regions
    # nothing found on the sun, the empty frame or the noise
    for r in regions:
        assert x0 <= r.center[0] < x1 and y0 <= r.center[1] < y1, r


def test_no_text_on_game_shapes():
    assert text_regions(shapes_frame()) == []
    assert text_regions(np.zeros((240, 320, 3), dtype=np.uint8)) == []


@pytest.mark.parametrize("word", ["OK", "Play", "New Game", "Quit", "1 Player"])
@pytest.mark.parametrize("size", [16, 24, 40, 64])
def test_words_of_menu_sizes_are_found(word, size):
    img = Image.new("RGB", (640, 480), (0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.text((200, 200), word, font=font(size), fill=(255, 255, 255))
    left, top, right, bottom = draw.textbbox((200, 200), word, font=font(size))
    regions = text_regions(np.array(img))
    assert regions, (word, size)
    for r in regions:
        assert left - 2 <= r.center[0] <= right + 2 and top - 2 <= r.center[1] <= bottom + 2


def test_large_frames_are_analysed_at_reduced_size_in_frame_coordinates():
    small, (x0, y0, x1, y1) = menu_frame()
    big = np.array(Image.fromarray(small).resize((1920, 1440)))
    regions = text_regions(big)
    assert regions
    cx, cy = regions[0].center
    assert x0 * 2.4 <= cx <= x1 * 2.4 and y0 * 2.4 <= cy <= y1 * 2.4


def test_screen_change():
    frame, _ = menu_frame()
    assert not screen_changed(frame, frame.copy())
    noisy = np.clip(
        frame.astype(int) + np.random.default_rng(1).integers(-3, 4, frame.shape), 0, 255
    )
    assert not screen_changed(frame, noisy.astype(np.uint8))  # faint noise is not a change
    moved = frame.copy()
    moved[300:332, 600:632] = 255  # a 32-pixel sprite appears
    assert screen_changed(frame, moved)
    assert changed_fraction(frame, frame[:300]) == 1.0  # a resize counts as a full change


def test_styled_buttons_whose_letters_touch_are_found():
    frame, boxes = styled_buttons_frame()
    centers = [r.center for r in text_regions(frame)]
    for x0, y0, x1, y1 in boxes:
        assert any(x0 <= cx < x1 and y0 <= cy < y1 for cx, cy in centers), ((x0, y0), centers)
