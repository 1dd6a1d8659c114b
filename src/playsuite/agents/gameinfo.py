"""What a player is told about a game: catalog text made prompt-ready, and its documented keys.

Catalog rows come from many sources (itch.io pages full of HTML, Debian package descriptions,
READMEs); fields are often missing. This module turns a row into clean, bounded text with a
sensible wording for every missing field, so a prompt never shows ``None`` or raw markup, and it
reads the ``controls`` text for the key names a scripted player should try first.
"""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from playsuite.actions.keys import KeyNameError, normalize_key

#: Tags whose text is never shown (code, styling, embedded media).
_SKIP_TAGS = frozenset({"script", "style", "iframe", "object", "embed", "noscript", "svg", "head"})
#: Tags that start a new line of text.
_BLOCK_TAGS = frozenset(
    {
        "p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header",
        "footer", "blockquote", "pre", "dl", "dt", "dd", "hr", "h1", "h2", "h3", "h4", "h5", "h6",
    }
)  # fmt: skip
#: Every other tag a developer page plausibly uses; anything else (``<space>``, ``<Left>``) is
#: text a developer wrote about keys and is kept verbatim.
_INLINE_TAGS = frozenset(
    {
        "a", "b", "i", "u", "s", "em", "strong", "span", "small", "big", "sub", "sup", "code",
        "kbd", "img", "font", "center", "td", "th", "thead", "tbody", "tfoot", "caption", "figure",
        "figcaption", "mark", "abbr", "cite", "q", "del", "ins", "strike", "tt", "var", "video",
        "audio", "source", "picture", "html", "body", "meta", "link", "title", "label", "nav",
        "main", "aside", "details", "summary", "wbr", "time",
    }
)  # fmt: skip


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skip_depth += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n- " if tag == "li" else "\n")
        elif tag not in _INLINE_TAGS and not self._skip_depth:
            self.parts.append(self.get_starttag_text() or "")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")
        elif tag not in _INLINE_TAGS and tag not in _SKIP_TAGS and not self._skip_depth:
            self.parts.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")
        elif tag not in _INLINE_TAGS and not self._skip_depth:
            self.parts.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self.parts.append(data)


def strip_html(text: str | None) -> str:
    """Plain text of an HTML fragment: tags dropped, entities decoded, whitespace tidied.

    Block elements become line breaks and list items ``- `` bullets; blank lines are dropped.
    Angle-bracket words that are not HTML (``<space>``, ``<Left>``) survive, because developers
    use them to name keys.
    """
    if not text:
        return ""
    parser = _TextExtractor()
    parser.feed(str(text))
    parser.close()
    raw = html.unescape("".join(parser.parts)).replace("\r\n", "\n").replace("\u00a0", " ")
    lines = [re.sub(r"[ \t\f\v]+", " ", line).strip() for line in raw.split("\n")]
    # Blank lines carry no meaning once markup is gone (and cost tokens): drop them.
    return "\n".join(line for line in lines if line not in ("", "-"))


def truncate(text: str, max_chars: int) -> str:
    """Cut ``text`` to at most ``max_chars`` characters at a word boundary, marking the cut."""
    if max_chars <= 0 or len(text) <= max_chars:
        return text
    marker = " [...]"
    cut = text[: max(0, max_chars - len(marker))]
    space = cut.rfind(" ")
    if space > len(cut) // 2:
        cut = cut[:space]
    return cut.rstrip() + marker


@dataclass(frozen=True)
class TextLimits:
    """Character budgets for the free-text fields, so one verbose README cannot flood a prompt."""

    description: int = 1500
    instructions: int = 3000
    controls: int = 1200


@dataclass(frozen=True)
class GameText:
    """Prompt-ready text for one game; every field is a non-empty string."""

    id: str
    title: str
    author: str
    genre: str
    tags: str
    description: str
    instructions: str
    controls: str
    controls_documented: bool


NO_CONTROLS = (
    "None documented. Use the fallback controls listed below, and look for hints on the screen."
)


def _as_mapping(game: Any) -> Mapping[str, Any]:
    if isinstance(game, Mapping):
        return game
    to_dict = getattr(game, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"game must be a catalog row (a mapping), got {type(game).__name__}")


def _field(row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(str(v).strip() for v in value if str(v).strip())
    return str(value).strip()


def game_text(
    game: Mapping[str, Any] | Any, readme_text: str | None = None, limits: TextLimits | None = None
) -> GameText:
    """Clean, bounded text for a catalog row (a dict or a ``GameEntry``).

    ``instructions`` are the row's ``instructions`` field if present, else ``readme_text`` (the
    contents of the game's README, read by the caller: the row's ``readme`` is only a path).
    """
    row = _as_mapping(game)
    limits = limits or TextLimits()
    game_id = _field(row, "id")
    title = strip_html(_field(row, "title")) or game_id or "an untitled game"
    controls = truncate(strip_html(_field(row, "controls")), limits.controls)
    instructions = strip_html(_field(row, "instructions")) or strip_html(
        readme_text or _field(row, "readme_text")
    )
    return GameText(
        id=game_id or "unknown",
        title=title,
        author=strip_html(_field(row, "author")) or "unknown",
        genre=strip_html(_field(row, "genre")) or "unknown",
        tags=strip_html(_field(row, "tags")) or "none",
        description=truncate(strip_html(_field(row, "description")), limits.description)
        or "No description was provided.",
        instructions=truncate(instructions, limits.instructions)
        or "No separate instructions were provided.",
        controls=controls or NO_CONTROLS,
        controls_documented=bool(controls),
    )


# --- documented keys -------------------------------------------------------------------------

ARROWS = ("left", "right", "up", "down")
WASD = ("w", "a", "s", "d")
#: Words that name a key when they appear in a controls text (lower-cased).
_NAMED = {
    "space": "space",
    "spacebar": "space",
    "enter": "enter",
    "return": "enter",
    "escape": "escape",
    "esc": "escape",
    "shift": "shift",
    "ctrl": "ctrl",
    "control": "ctrl",
    "alt": "alt",
    "tab": "tab",
    "backspace": "backspace",
}
_FKEY = re.compile(r"f(1[0-2]|[1-9])")
_TOKEN = re.compile(r"[A-Za-z]+[0-9]*|[0-9]+|\S")


_RANGE = re.compile(r"\b(\d)\s*(?:-|–|to)\s*(\d)\b")


def _expand_range(match: re.Match[str]) -> str:
    lo, hi = int(match[1]), int(match[2])
    if lo >= hi:
        return match[0]
    return " ".join(f"'{d}'" for d in range(lo, hi + 1))


@dataclass(frozen=True)
class DocumentedControls:
    """Keys and mouse use a developer documented, in the order they were mentioned."""

    keys: tuple[str, ...]
    mouse: bool
    right_mouse: bool

    @property
    def movement_keys(self) -> tuple[str, ...]:
        return tuple(k for k in self.keys if k in ARROWS or k in WASD)


def documented_controls(controls: str | None) -> DocumentedControls:
    """Read canonical key names out of free-text controls (``"Arrows move, Z jumps, mouse aims"``).

    Heuristic by design: named keys (space, enter, ...), ``arrow``/``cursor`` keys, ``WASD``,
    function keys, digit ranges (``1-5``), and single letters written the way people name keys
    (upper case ``Z``, quoted ``'z'``, or followed by ``key``). A lower-case letter in prose
    (``a game``) is not a key, and neither is ``left`` in ``move left`` unless the text talks
    about arrow keys.
    """
    text = strip_html(controls or "")
    # Expand digit ranges in place ("1-5" -> "'1' '2' '3' '4' '5'") so keys keep the written order.
    text = _RANGE.sub(_expand_range, text)
    lower = text.lower()
    keys: list[str] = []

    def add(*names: str) -> None:
        for name in names:
            if name not in keys:
                keys.append(name)

    arrows = bool(re.search(r"\barrow|\bcursor keys?\b|\barrows\b", lower))
    tokens = list(_TOKEN.finditer(text))
    for i, match in enumerate(tokens):
        token = match.group()
        low = token.lower()
        prev_char = text[match.start() - 1] if match.start() > 0 else ""
        next_char = text[match.end()] if match.end() < len(text) else ""
        following = tokens[i + 1].group().lower() if i + 1 < len(tokens) else ""
        if low in ("arrow", "arrows", "cursor") and following in ("keys", "key", "") and arrows:
            add(*ARROWS)
        elif low == "wasd":
            add(*WASD)
        elif low in _NAMED:
            add(_NAMED[low])
        elif (low in ARROWS and (arrows or token[0].isupper())) or _FKEY.fullmatch(low):
            add(low)
        elif len(token) == 1 and token.isalnum():
            quoted = prev_char in "'\"`[(<" and next_char in "'\"`])>"
            named = following in ("key", "keys", "button")
            preceding = tokens[i - 1].group() if i > 0 else ""
            listed = (
                next_char in ":=/,;.)"
                or following in ("", "to", "-", "/", "or", "and")
                or following.isdigit()
                or preceding.isdigit()
            )
            letter_like = token.isalpha() and token.isupper()
            if quoted or named or letter_like or (token.isdigit() and listed):
                with contextlib.suppress(KeyNameError):
                    add(normalize_key(low))
    mouse = bool(re.search(r"\bmouse\b|\bclick|\blmb\b|\brmb\b|\bcursor\b(?! keys?)", lower))
    right = bool(re.search(r"\bright[- ]?(click|mouse|button)|\brmb\b", lower))
    return DocumentedControls(tuple(keys), mouse or right, right)
