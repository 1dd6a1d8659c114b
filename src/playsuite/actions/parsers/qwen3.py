"""Standard grammar as Qwen3-VL emits it: coordinates on the relative 0-1000 grid.

Qwen3-VL changed the grounding convention of Qwen2.5-VL: instead of absolute pixels of the
resized image it is trained to give points and boxes relative to the image on a 0-1000 scale
(QwenLM/Qwen3-VL README and cookbooks; the ``computer_use`` tool prompt of Qwen3-VL agents states
"The screen's resolution is 1000x1000"). Asked for pixels, Qwen3-VL models still answer on that
grid, so reading their clicks as pixels would squeeze every click into the top-left corner of a
screen wider than 1000 px. This parser therefore reads the same grammar as ``standard`` and maps
``x_screen = floor(x / 1000 * screen_w)`` (likewise y), independent of the image size.

Table 8 gives this parser to Qwen3-VL and Qwen3-Omni, and also to InternVL2.5 and both Gemma 4
models: InternVL's grounding answers are on the same 0-1000 grid (OpenGVLab/InternVL
``eval/refcoco/evaluate_grounding.py`` divides by 1000), and Gemma 4 is reported to point on a
1000x1000 space, as Gemini does (docs/parsers.md lists the sources and what is unverified).

Relative moves are grid units too (``move:+100,0`` pans a tenth of the screen width). A value
above 1000 is an ``invalid`` action rather than a guess. Qwen3 "Thinking" variants emit a
``<think>…</think>`` block first; it is removed. Set ``parser_options: {coordinates: pixels}`` for
a Qwen3 model prompted and fine-tuned to answer in pixels.
"""

from __future__ import annotations

from typing import Any

from playsuite.actions.canonical import Action
from playsuite.actions.grammar import parse_standard
from playsuite.actions.parsers.common import ParseContext

DEFAULTS: dict[str, Any] = {"coordinates": "grid", "grid": 1000}


def parse(text: str, ctx: ParseContext) -> list[Action]:
    return parse_standard(text, ctx.frame)
