"""Model-output parsers (paper Table 8): raw answer text -> canonical actions in screen pixels.

One module per model family, each documenting its family's output format and coordinate
convention with the source it was taken from. This registry is the only entry point the rest of
the package uses::

    from playsuite.actions.parsers import PARSER_NAMES, get_parser, parse_response
    actions = parse_response("uitars", text, screen=(1280, 720), image=(1280, 720))

``parse_response`` never raises on any text: what cannot be understood is an ``invalid`` action
with a reason. It does raise :class:`ValueError` for a wrong *configuration* (unknown parser,
unknown option, bad screen size), which is a bug to fix, not a model answer to count.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from playsuite.actions.canonical import Action, Click, Move, Scroll, clamp_to_screen
from playsuite.actions.parsers.common import (
    COMMON_DEFAULTS,
    ParseContext,
    has_lone_surrogate,
    invalid,
)
from playsuite.actions.parsers.coords import COORDINATE_MODES

#: Parser names in the order of the paper's Table 8, then the generalist tool interface's
#: (``tools``: typed tool calls, GameWorld's semantic interface; any preset can use it).
PARSER_NAMES: tuple[str, ...] = (
    "standard",
    "qwen3",
    "computer_use",
    "uitars",
    "opencua",
    "osatlas",
    "showui",
    "tools",
)

ParseFunction = Callable[[str, ParseContext], list[Action]]


@dataclass(frozen=True)
class Parser:
    """One registered parser: its name, its option defaults and its parse function."""

    name: str
    defaults: Mapping[str, Any]
    parse_fn: ParseFunction
    doc: str

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else self.name

    def options(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Defaults merged with ``overrides``; :class:`ValueError` for an unknown option."""
        merged = {**COMMON_DEFAULTS, **self.defaults}
        for key, value in (overrides or {}).items():
            if key not in merged:
                known = ", ".join(sorted(merged))
                raise ValueError(f"parser {self.name!r} has no option {key!r}; known: {known}")
            merged[key] = value
        if merged["coordinates"] not in COORDINATE_MODES:
            raise ValueError(
                f"parser option 'coordinates' must be one of {COORDINATE_MODES}, "
                f"got {merged['coordinates']!r}"
            )
        for key in (
            "grid",
            "factor",
            "min_pixels",
            "max_pixels",
            "scroll_notches",
            "max_type_chars",
        ):
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 1:
                raise ValueError(f"parser option {key!r} must be a number >= 1, got {value!r}")
        seconds = merged["keydown_seconds"]
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
            raise ValueError(f"parser option 'keydown_seconds' must be > 0, got {seconds!r}")
        return merged

    def parse(
        self,
        text: str,
        screen: tuple[int, int],
        image: tuple[int, int] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> list[Action]:
        return parse_response(self.name, text, screen, image, options)


def get_parser(name: str) -> Parser:
    """The parser called ``name``; :class:`ValueError` lists the known names otherwise."""
    if name not in PARSER_NAMES:
        raise ValueError(f"unknown parser {name!r}; known: {', '.join(PARSER_NAMES)}")
    module = importlib.import_module(f"playsuite.actions.parsers.{name}")
    return Parser(name, dict(module.DEFAULTS), module.parse, module.__doc__ or "")


def _size(value: Any, what: str) -> tuple[int, int]:
    if (
        not isinstance(value, tuple | list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        raise ValueError(f"{what} must be (width, height) in positive pixels, got {value!r}")
    return int(value[0]), int(value[1])


def _on_screen(action: Action, screen: tuple[int, int]) -> Action:
    if isinstance(action, Click | Move | Scroll):
        return clamp_to_screen(action, *screen)
    return action


def parse_response(
    parser: str,
    text: str,
    screen: tuple[int, int],
    image: tuple[int, int] | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[Action]:
    """Canonical actions (screen pixels) for one model answer; never raises on any ``text``.

    ``image`` is the size of the image the model was sent (default: the screen size);
    ``options`` override the parser's defaults (a preset's ``parser_options``). The list is never
    empty: an answer without an action yields one ``invalid`` action with the reason.
    """
    spec = get_parser(parser)
    ctx = ParseContext(
        _size(screen, "screen"), _size(image or screen, "image"), spec.options(options)
    )
    ctx.frame  # noqa: B018 -- validate the coordinate options before reading any text
    if not isinstance(text, str):
        return [invalid(repr(text), f"answer is not text but {type(text).__name__}")]
    if has_lone_surrogate(text):
        # Not valid Unicode: the whole answer is one invalid action, whatever it seems to say.
        return [invalid(text, "answer is not valid Unicode (a lone surrogate)")]
    try:
        actions = spec.parse_fn(text, ctx)
    except Exception as exc:  # a parser bug must not end an episode; it is recorded instead
        return [invalid(text, f"parser {parser!r} failed: {type(exc).__name__}: {exc}")]
    if not actions:
        return [invalid(text, "no action found")]
    return [_on_screen(a, ctx.screen) for a in actions]
