"""Reading Python-style calls that models write as actions: ``click(start_box='(3,4)')``,
``pyautogui.hotkey('ctrl', 'c')``.

Nothing is evaluated. Arguments are split at top-level commas (outside quotes and brackets) and
each value is a quoted string (escapes decoded), a Python literal read with
:func:`ast.literal_eval` (numbers, lists), or else its bare text. Models do not always escape the
quotes inside typed text (``type(content='it's')``), so a lone text argument is taken greedily
between its first and last quote, as UI-TARS' own parser does.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

MAX_CALL_CHARS = 4000

_HEAD = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\(")
_KWARG = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$", re.DOTALL)
_TEXT_ARG = re.compile(r"^\s*(content|text|message|value)\s*=\s*(['\"])(.*)\2\s*$", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}


@dataclass(frozen=True)
class Call:
    """One call: dotted ``name``, positional ``args``, keyword ``kwargs``, and its ``raw`` text."""

    name: str
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    raw: str = ""

    @property
    def short(self) -> str:
        """The function name without its module (``pyautogui.click`` -> ``click``)."""
        return self.name.rsplit(".", 1)[-1]

    def get(self, *names: str, position: int | None = None) -> Any:
        """The first keyword argument present among ``names``, else positional ``position``."""
        for name in names:
            if name in self.kwargs:
                return self.kwargs[name]
        if position is not None and position < len(self.args):
            return self.args[position]
        return None


def unescape(text: str) -> str:
    """Decode ``\\n``, ``\\t``, ``\\'``, ``\\"`` and ``\\\\``; other backslashes stay."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPES:
            out.append(_ESCAPES[text[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _value(text: str) -> Any:
    text = text.strip()
    for quote in ('"""', "'''", '"', "'"):
        if len(text) >= 2 * len(quote) and text.startswith(quote) and text.endswith(quote):
            return unescape(text[len(quote) : -len(quote)])
    if len(text) <= 1000:
        try:
            return ast.literal_eval(text)
        except Exception:  # not a literal: keep the bare text
            pass
    return text


def split_args(text: str) -> list[str]:
    """Top-level comma-separated pieces of an argument list."""
    pieces: list[str] = []
    depth = 0
    quote = ""
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
        i += 1
    pieces.append(text[start:])
    return [p for p in pieces if p.strip()]


def strip_comment(line: str) -> str:
    """``line`` without a trailing ``# comment`` (a ``#`` inside quotes is kept)."""
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:i].rstrip()
        i += 1
    return line


def parse_call(text: str) -> Call | None:
    """The call ``name(args)`` that ``text`` starts with; None if it does not start with one.

    The arguments run to the last ``)`` of ``text`` (or its end: models drop the closing
    parenthesis when they run out of tokens).
    """
    text = text.strip()[:MAX_CALL_CHARS]
    head = _HEAD.match(text)
    if head is None:
        return None
    body = text[head.end() :]
    close = body.rfind(")")
    body = body[:close] if close >= 0 else body
    greedy = _TEXT_ARG.match(body)
    if greedy is not None:
        return Call(head.group(1), [], {greedy.group(1): unescape(greedy.group(3))}, text)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for piece in split_args(body):
        kw = _KWARG.match(piece)
        if kw is not None:
            kwargs[kw.group(1)] = _value(kw.group(2))
        else:
            args.append(_value(piece))
    return Call(head.group(1), args, kwargs, text)
