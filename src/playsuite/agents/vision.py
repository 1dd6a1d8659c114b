"""Cheap frame analysis for scripted play: did the screen change, and where is text?

The explorer baseline needs two things a person uses without thinking: noticing that an action
did nothing, and spotting the words on a menu ("Play", "Start") to click. Both are done here with
numpy and scipy.ndimage in a few milliseconds per frame; no model, no OCR. Text is found as
rows of short, dense strokes: pixels with a strong local contrast, merged horizontally into word
blobs, kept when the blob is wider than tall, of text height, and made of several separate
strokes (which rules out outlines, bars and flat shapes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

#: Frames wider than this are analysed at a reduced size (text detection stays within budget).
ANALYSIS_WIDTH = 960
#: Above this share of edge pixels a box is noise or fine texture, not lettering.
MAX_EDGE_DENSITY = 0.65
#: Below this share of background brightness a box is noise or texture, not lettering.
MIN_BACKGROUND = 0.3


def _gray(frame: np.ndarray) -> np.ndarray:
    if frame.ndim != 3 or frame.shape[2] < 3:
        raise ValueError(f"expected an H×W×3 frame, got shape {frame.shape}")
    r, g, b = (frame[..., i].astype(np.float32) for i in range(3))
    return 0.299 * r + 0.587 * g + 0.114 * b


def _downsample(gray: np.ndarray, factor: int) -> np.ndarray:
    if factor <= 1:
        return gray
    h, w = (gray.shape[0] // factor) * factor, (gray.shape[1] // factor) * factor
    # Strided sums: several times faster than reshape(...).mean(axis=(1, 3)) on large frames.
    cols = gray[:h, 0:w:factor].astype(np.float32)
    for i in range(1, factor):
        cols += gray[:h, i:w:factor]
    out = cols[0::factor].copy()
    for i in range(1, factor):
        out += cols[i::factor]
    return out / float(factor * factor)


def thumbnail(frame: np.ndarray, width: int = 160) -> np.ndarray:
    """Grayscale, block-averaged to about ``width`` pixels wide (float32, 0..255)."""
    factor = max(1, frame.shape[1] // width)
    return _downsample(_gray(frame), factor).astype(np.float32)


#: Brightness step (0..255) that counts a thumbnail pixel as changed.
CHANGE_TOLERANCE = 12.0
#: Share of changed thumbnail pixels above which the screen "changed".
CHANGE_THRESHOLD = 0.002


def thumbnail_change(ta: np.ndarray, tb: np.ndarray, tolerance: float = CHANGE_TOLERANCE) -> float:
    """Share of pixels of two thumbnails whose brightness differs by more than ``tolerance``."""
    if ta.shape != tb.shape:
        return 1.0
    return float(np.mean(np.abs(ta - tb) > tolerance))


def changed_fraction(a: np.ndarray, b: np.ndarray, tolerance: float = CHANGE_TOLERANCE) -> float:
    """Share of thumbnail pixels whose brightness differs by more than ``tolerance`` (0..255)."""
    return thumbnail_change(thumbnail(a), thumbnail(b), tolerance)


def screen_changed(a: np.ndarray, b: np.ndarray, threshold: float = CHANGE_THRESHOLD) -> bool:
    """True when ``b`` differs visibly from ``a``: a moving sprite counts, faint noise does not."""
    return changed_fraction(a, b) > threshold


@dataclass(frozen=True)
class Region:
    """A text-like box in frame pixels: [x0, x1) × [y0, y1), with a confidence-like score."""

    x0: int
    y0: int
    x1: int
    y1: int
    strokes: int
    score: float

    @property
    def center(self) -> tuple[int, int]:
        return (self.x0 + self.x1) // 2, (self.y0 + self.y1) // 2

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0


def _window_count(mask: np.ndarray, radius: int, axis: int, pad: bool) -> np.ndarray:
    """How many of the 2·radius+1 cells around each cell along ``axis`` are set."""
    moved = np.moveaxis(mask, axis, -1)
    padded = np.pad(moved, [(0, 0)] * (moved.ndim - 1) + [(radius + 1, radius)],
                    constant_values=pad)  # fmt: skip
    sums = np.cumsum(padded, axis=-1, dtype=np.int32)
    window = sums[..., 2 * radius + 1 :] - sums[..., : -2 * radius - 1]
    return np.moveaxis(window, -1, axis)


def _close(mask: np.ndarray, radius: int, axis: int) -> np.ndarray:
    """Morphological closing with a line of 2·radius+1 cells along ``axis``: fills gaps of up to
    2·radius cells between set cells. Linear time (running sums), unlike a generic closing."""
    dilated = _window_count(mask, radius, axis, pad=False) > 0
    return _window_count(dilated, radius, axis, pad=True) == 2 * radius + 1


def _periodic(cols: np.ndarray) -> bool:
    """A row of identical, evenly spaced objects (coins, bricks, dashes) rather than letters.

    The runs of edge columns and the gaps between them repeat with a period of one (a dash
    pattern) or two (each object giving a left and a right edge), to within a pixel.
    """
    padded = np.concatenate(([False], cols, [False])).astype(np.int8)
    starts = np.flatnonzero(np.diff(padded) == 1)
    ends = np.flatnonzero(np.diff(padded) == -1)
    runs = ends - starts
    gaps = starts[1:] - ends[:-1]
    for period in (1, 2):
        if len(runs) < 2 * period + 2:
            continue
        if (np.abs(runs[period:] - runs[:-period]) <= 1).all() and (
            np.abs(gaps[period:] - gaps[:-period]) <= 1
        ).all():
            return True
    return False


def text_regions(
    frame: np.ndarray,
    *,
    contrast: float = 40.0,
    min_height: int = 6,
    max_regions: int = 12,
) -> list[Region]:
    """Boxes of the frame that look like lines of text, best first.

    ``contrast`` is the brightness step (0..255) between neighbouring pixels that counts as a
    stroke edge. Detection runs at two scales, so both menu-sized words and large titles (whose
    letters stand far apart) are found. Boxes are returned in frame coordinates.
    """
    width = frame.shape[1]
    base = max(1, -(-width // ANALYSIS_WIDTH))
    gray = _gray(frame)
    fine = _edges(_downsample(gray, base), contrast)
    found = _detect(_downsample(gray, base), fine, base, frame.shape[:2], contrast, min_height)
    coarse = _downsample(gray, 2 * base)
    found += _detect(coarse, _edges(coarse, contrast), 2 * base, frame.shape[:2], contrast,
                     min_height)  # fmt: skip
    found.sort(key=lambda r: (-r.score, r.y0, r.x0))
    kept: list[Region] = []
    for region in found:
        # Averaging hides noise at the coarse scale; at the fine scale noise is edges almost
        # everywhere, lettering is not.
        box = fine[region.y0 // base : region.y1 // base, region.x0 // base : region.x1 // base]
        if box.size and box.mean() > MAX_EDGE_DENSITY:
            continue
        if _background_share(gray[region.y0 : region.y1, region.x0 : region.x1]) < MIN_BACKGROUND:
            continue
        cx, cy = region.center
        if not any(k.x0 <= cx < k.x1 and k.y0 <= cy < k.y1 for k in kept):
            kept.append(region)
    return kept[:max_regions]


def _background_share(gray: np.ndarray) -> float:
    """Share of the box at its most common brightness (within about ±12 levels).

    Lettering is drawn on a background, so one brightness covers much of its box (text on a
    gradient still leaves a third or more); noise and textures spread over all levels.
    """
    hist, _ = np.histogram(gray, bins=32, range=(0.0, 256.0))
    mode = int(hist.argmax())
    return float(hist[max(0, mode - 1) : mode + 2].sum()) / max(1, gray.size)


def _edges(gray: np.ndarray, contrast: float) -> np.ndarray:
    """Pixels with a brightness step above ``contrast`` to their left or upper neighbour."""
    edges = np.zeros(gray.shape, dtype=bool)
    edges[:, 1:] |= np.abs(np.diff(gray, axis=1)) > contrast
    edges[1:, :] |= np.abs(np.diff(gray, axis=0)) > contrast
    return edges


def _detect(
    gray: np.ndarray,
    edges: np.ndarray,
    factor: int,
    shape: tuple[int, int],
    contrast: float,
    min_height: int,
) -> list[Region]:
    height, width = shape
    gh, gw = gray.shape
    if not edges.any():
        return []
    # Merge the strokes of a word (gaps of a few pixels) but not separate lines or objects.
    gap = max(3, gw // 320)
    merged = _close(_close(edges, gap, axis=1), 1, axis=0)
    labels, count = ndimage.label(merged, structure=np.ones((3, 3), dtype=bool))
    if count == 0:
        return []
    min_h = max(3, min_height // factor)
    max_h = max(min_h + 1, int(gh * 0.2))
    regions: list[Region] = []
    for index, box in enumerate(ndimage.find_objects(labels), start=1):
        if box is None:
            continue
        ys, xs = box
        h, w = ys.stop - ys.start, xs.stop - xs.start
        if not (min_h <= h <= max_h) or w < 1.2 * h or w > 0.9 * gw:
            continue
        own = (labels[box] == index) & edges[box]
        density = own.sum() / float(h * w)
        if not 0.06 <= density <= MAX_EDGE_DENSITY:
            continue
        # Separate strokes: runs of columns holding edges, split by empty columns (letters,
        # words), counted in the middle band of the box so that a frame or an ellipse drawn
        # around (and touching) the word does not join the letters. A bar has one run.
        band = own[h // 4 : h - h // 4] if h >= 8 else own
        cols = band.any(axis=0)
        strokes = int(np.count_nonzero(cols[1:] & ~cols[:-1]) + cols[0])
        # Letters alternate: a row through text crosses many vertical edges, about two per
        # letter, and a word is a few letters per text height. A filled shape gives two.
        vertical = np.abs(np.diff(gray[box], axis=1)) > contrast
        crossings = float(np.percentile(vertical.sum(axis=1), 75))
        if crossings < max(4.0, 0.8 * w / h):
            continue
        # Either separate strokes, or (styled titles and buttons whose letters touch, with
        # outlines and gradients) a dense alternation of edges along the rows.
        # Noise and fine textures alternate far more densely than lettering does; rows of
        # identical objects (coins, bricks) alternate regularly.
        if _periodic(cols):
            continue
        separate = strokes >= 2
        touching = max(8.0, 2.0 * w / h) <= crossings <= 0.3 * w
        if not (separate or touching):
            continue
        strokes = max(strokes, int(crossings // 2))
        score = float(strokes * min(1.0, density / 0.2))
        regions.append(
            Region(
                x0=xs.start * factor,
                y0=ys.start * factor,
                x1=min(width, xs.stop * factor),
                y1=min(height, ys.stop * factor),
                strokes=strokes,
                score=score,
            )
        )
    return regions
