"""Coordinate frames: how a model's numbers become pixels of the game's screen.

Every model family answers in its own space. Qwen2.5-VL-based models (UI-TARS-1.5, OpenCUA-7B)
answer in pixels of the image *after* the processor's ``smart_resize``; Qwen3-VL, OS-Atlas and the
``computer_use`` agents answer on a relative 0-1000 (or 0-999) grid; ShowUI answers in 0-1
fractions; the standard grammar answers in pixels of the image the model was sent. All of these are
one linear map from a coordinate *span* to the screen, so one class does them all and each parser
only chooses the span.

Conversion floors ``value * screen / span`` and keeps the result on screen, as the reference
implementations do (UI-TARS README_coordinates.md, EvoCUA ``adjust_coordinates``, GUI-Owl
``coordinate_resize.py`` all truncate with ``int``). A value outside the span is not clamped into
it: a click at x=5000 on a 1000-wide grid is a misunderstanding, and guessing a target for it
would hide that from the invalid-action count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

#: qwen-vl-utils / Qwen2.5-VL defaults: patch 14 merged 2x2, so sides are multiples of 28.
QWEN_FACTOR = 28
QWEN_MIN_PIXELS = 4 * 28 * 28  # 3,136
QWEN_MAX_PIXELS = 16384 * 28 * 28  # 12,845,056
#: UI-TARS codes/ui_tars/action_parser.py raises the lower bound to 100 patches.
UITARS_MIN_PIXELS = 100 * 28 * 28  # 78,400

#: A relative move (mouse-look) may pan past the screen edge, but not by more than this many
#: screen widths/heights: beyond that the number is noise, not a pan.
MAX_DELTA_SPANS = 10

COORDINATE_MODES = ("pixels", "smart_resize", "grid", "fraction")


class CoordinateError(ValueError):
    """A coordinate outside the frame the model was asked to answer in."""


def smart_resize(
    width: int,
    height: int,
    factor: int = QWEN_FACTOR,
    min_pixels: int = QWEN_MIN_PIXELS,
    max_pixels: int = QWEN_MAX_PIXELS,
) -> tuple[int, int]:
    """Size ``(width, height)`` that a Qwen2-VL-style processor resizes an image to.

    Each side is rounded to the nearest multiple of ``factor``; if the area then exceeds
    ``max_pixels`` (or falls short of ``min_pixels``) both sides are scaled by the square root of
    the area ratio, rounding down (up) to the factor, so the aspect ratio is kept. This is the
    rule of qwen-vl-utils ``vision_process.smart_resize`` (QwenLM/Qwen2.5-VL), re-implemented here
    because the parser needs the size the model saw, not the pixels.

    Note the argument order: width first, like every size in this package (the reference
    function takes height first).
    """
    if width < 1 or height < 1:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    if factor < 1 or min_pixels < 1 or max_pixels < min_pixels:
        raise ValueError(f"bad smart_resize bounds: factor={factor} {min_pixels}..{max_pixels}")
    w_bar = max(factor, round(width / factor) * factor)
    h_bar = max(factor, round(height / factor) * factor)
    if w_bar * h_bar > max_pixels:
        beta = math.sqrt(width * height / max_pixels)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
    elif w_bar * h_bar < min_pixels:
        beta = math.sqrt(min_pixels / (width * height))
        w_bar = math.ceil(width * beta / factor) * factor
        h_bar = math.ceil(height * beta / factor) * factor
    return w_bar, h_bar


@dataclass(frozen=True)
class Frame:
    """Linear map from a model's coordinate span to screen pixels.

    ``span`` is the size of the space the model answers in (e.g. 1000x1000 for a grid, the
    smart-resized image size for Qwen2.5-VL); ``screen`` is the game's screen in pixels.
    """

    span_w: float
    span_h: float
    screen_w: int
    screen_h: int
    label: str

    def point(self, x: float, y: float) -> tuple[int, int]:
        """Screen pixel for model point (x, y); :class:`CoordinateError` when outside the span."""
        for value, span, axis in ((x, self.span_w, "x"), (y, self.span_h, "y")):
            if not math.isfinite(value) or value < 0 or value > span:
                raise CoordinateError(
                    f"{axis}={_num(value)} is outside the model's frame ({self.label})"
                )
        sx = math.floor(x * self.screen_w / self.span_w)
        sy = math.floor(y * self.screen_h / self.span_h)
        return min(sx, self.screen_w - 1), min(sy, self.screen_h - 1)

    def delta(self, dx: float, dy: float) -> tuple[int, int]:
        """Screen offset for a relative pointer move of (dx, dy) in the model's units."""
        if not (math.isfinite(dx) and math.isfinite(dy)):
            raise CoordinateError("relative move must be finite")
        if abs(dx) > MAX_DELTA_SPANS * self.span_w or abs(dy) > MAX_DELTA_SPANS * self.span_h:
            raise CoordinateError(
                f"relative move ({_num(dx)}, {_num(dy)}) spans more than {MAX_DELTA_SPANS} "
                f"screens ({self.label})"
            )
        return (
            round(dx * self.screen_w / self.span_w),
            round(dy * self.screen_h / self.span_h),
        )


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _positive_int(options: dict[str, Any], name: str) -> int:
    value = options[name]
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 1:
        raise ValueError(f"parser option {name!r} must be a positive number, got {value!r}")
    return int(value)


def make_frame(options: dict[str, Any], screen: tuple[int, int], image: tuple[int, int]) -> Frame:
    """The frame a parser's options describe.

    ``coordinates`` selects the convention: ``pixels`` (of the image sent), ``smart_resize``
    (pixels of the Qwen2-VL-resized image; uses ``factor``, ``min_pixels``, ``max_pixels``),
    ``grid`` (0..``grid`` on both axes) or ``fraction`` (0..1).
    """
    mode = options.get("coordinates")
    sw, sh = screen
    iw, ih = image
    if mode == "pixels":
        return Frame(iw, ih, sw, sh, f"pixels of the {iw}x{ih} image")
    if mode == "smart_resize":
        rw, rh = smart_resize(
            iw,
            ih,
            _positive_int(options, "factor"),
            _positive_int(options, "min_pixels"),
            _positive_int(options, "max_pixels"),
        )
        return Frame(rw, rh, sw, sh, f"pixels of the {iw}x{ih} image resized to {rw}x{rh}")
    if mode == "grid":
        g = _positive_int(options, "grid")
        return Frame(g, g, sw, sh, f"relative 0-{g} grid")
    if mode == "fraction":
        return Frame(1.0, 1.0, sw, sh, "relative 0-1 fractions")
    raise ValueError(f"parser option 'coordinates' must be one of {COORDINATE_MODES}, got {mode!r}")
