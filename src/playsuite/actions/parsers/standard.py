"""Standard grammar, coordinates in pixels of the image the model was sent.

Used by the paper's Qwen2.5-VL, Qwen2.5-Omni and Gemma 3 presets (Table 8), by the baseline
agents, and by extra presets that answer in pixels. The grammar itself is documented in
:mod:`playsuite.actions.grammar`.

Coordinates: the prompt shows the model an image of ``--image`` size and asks for pixels of that
image, so ``x_screen = floor(x * screen_w / image_w)`` (identity when the image is the screen).
For Qwen2.5-VL this is only right when the image's sides are already multiples of 28 (the
processor's ``smart_resize`` otherwise changes the size the model sees; QwenLM/Qwen2.5-VL README,
"absolute coordinates"): set the preset's ``parser_options: {coordinates: smart_resize}`` to
convert from the resized image instead (also right for Qwen2.5-Omni, which shares Qwen2.5-VL's
vision encoder and processor).
"""

from __future__ import annotations

from typing import Any

from playsuite.actions.canonical import Action
from playsuite.actions.grammar import parse_standard
from playsuite.actions.parsers.common import ParseContext

DEFAULTS: dict[str, Any] = {"coordinates": "pixels"}


def parse(text: str, ctx: ParseContext) -> list[Action]:
    return parse_standard(text, ctx.frame)
