"""Frames for the agent tests: menus with real rendered text (Pillow's bundled font), and shapes
that are not text. Drawn, not loaded, so each test states exactly what is on the screen."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def menu_frame(
    width: int = 800, height: int = 600, label: str = "START"
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A title menu: gradient sky, a sun, an empty frame, noise, and one labelled button.

    Returns the frame and the button's box (x0, y0, x1, y1).
    """
    sky = np.zeros((height, width, 3), dtype=np.uint8)
    sky[..., 2] = np.linspace(40, 140, height, dtype=np.uint8)[:, None]
    sky[..., 0] = 20
    img = Image.fromarray(sky)
    draw = ImageDraw.Draw(img)
    draw.ellipse((50, 50, 200, 200), fill=(220, 190, 40))
    draw.rectangle(
        (width - 200, height - 200, width - 40, height - 40), outline=(255, 255, 255), width=3
    )
    box = (width // 2 - 100, height // 2 - 30, width // 2 + 100, height // 2 + 30)
    draw.rectangle(box, fill=(60, 120, 60), outline=(200, 255, 200), width=2)
    fnt = font(28)
    left, top, right, bottom = draw.textbbox((0, 0), label, font=fnt)
    tx = (box[0] + box[2]) // 2 - (right - left) // 2 - left
    ty = (box[1] + box[3]) // 2 - (bottom - top) // 2 - top
    draw.text((tx, ty), label, font=fnt, fill=(255, 255, 255))
    frame = np.array(img)
    rng = np.random.default_rng(0)
    frame[height - 100 :, : width // 3] = rng.integers(0, 256, (100, width // 3, 3), dtype=np.uint8)
    return frame, box


def shapes_frame(width: int = 640, height: int = 480) -> np.ndarray:
    """Game-like shapes and no text: bricks, a health bar, coins, a tiled floor, lines."""
    img = Image.new("RGB", (width, height), (30, 30, 30))
    draw = ImageDraw.Draw(img)
    for i in range(8):
        draw.rectangle((20 + i * 75, 40, 90 + i * 75, 60), fill=(200, 50 + i * 20, 50))
    draw.rectangle((20, 100, 300, 115), fill=(0, 200, 0))
    for i in range(10):
        draw.ellipse((20 + i * 30, 150, 40 + i * 30, 170), fill=(255, 215, 0))
    for y in range(250, height, 32):
        for x in range(0, width, 32):
            if (x // 32 + y // 32) % 2:
                draw.rectangle((x, y, x + 31, y + 31), fill=(90, 140, 60))
    draw.line((0, 200, width, 200), fill=(255, 255, 255), width=2)
    for i in range(20):
        draw.rectangle((10 + i * 30, 220, 22 + i * 30, 232), fill=(255, 255, 255))
    return np.array(img)


def styled_buttons_frame() -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """Arcade-style menu: bold outlined words in touching ellipses over a starfield.

    Letters touch each other and their ellipse, so no column of the word is free of edges.
    Returns the frame and the ellipses' boxes.
    """
    rng = np.random.default_rng(3)
    frame = np.zeros((600, 800, 3), dtype=np.uint8)
    for y, x in zip(rng.integers(0, 598, 150), rng.integers(0, 798, 150), strict=True):
        frame[y : y + 2, x : x + 2] = 200
    img = Image.fromarray(frame)
    draw = ImageDraw.Draw(img)
    boxes = []
    for i, word in enumerate(("START", "NEWS", "QUIT")):
        x0, y0 = 40 + i * 250, 400
        box = (x0, y0, x0 + 190, y0 + 80)
        draw.ellipse(box, outline=(230, 230, 150), width=3, fill=(20, 20, 90))
        fnt = font(54)
        draw.text((x0 + 8, y0 + 10), word, font=fnt, fill=(120, 200, 40), stroke_width=3,
                  stroke_fill=(250, 250, 200))  # fmt: skip
        boxes.append(box)
    return np.array(img), boxes
