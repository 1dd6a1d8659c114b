"""The JSON objects of tool calls in a model's answer, for the parsers that read JSON calls.

An answer holds its calls as ``<tool_call>{...}</tool_call>`` blocks (Qwen's form, and what the
served policy writes back for a server's parsed tool calls), or, when a model leaves the tags
out, as bare JSON objects in its text. Both the ``computer_use`` parser (Qwen's computer-use
function) and the ``tools`` parser (the tool interface) read them this way; they differ only in
which bare objects count as a call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_OPEN = re.compile(r"<tool_call>", re.IGNORECASE)
_CLOSE = re.compile(r"</tool_call>", re.IGNORECASE)
_DECODER = json.JSONDecoder()
#: Without ``<tool_call>`` tags, at most this many ``{`` are tried as the start of a JSON object.
MAX_BARE_ATTEMPTS = 64


def tool_call_objects(
    text: str, looks_like_call: Callable[[dict[str, Any]], bool]
) -> list[tuple[Any, str]]:
    """(decoded value, or None when the block holds no JSON object; raw text) of each tagged
    block, or, without tags, of each bare top-level object that ``looks_like_call``."""
    opens = list(_OPEN.finditer(text))
    if opens:
        out = []
        for i, m in enumerate(opens):
            end = opens[i + 1].start() if i + 1 < len(opens) else len(text)
            body = text[m.end() : end]
            close = _CLOSE.search(body)
            body = body[: close.start()] if close else body
            out.append((_first_object(body), body.strip()))
        return out
    found: list[tuple[Any, str]] = []
    i, attempts = text.find("{"), 0
    while 0 <= i < len(text) and attempts < MAX_BARE_ATTEMPTS:
        attempts += 1
        try:
            value, end = _DECODER.raw_decode(text, i)
        except Exception:  # not JSON here (or nested too deep): try the next brace
            i = text.find("{", i + 1)
            continue
        if isinstance(value, dict) and looks_like_call(value):
            found.append((value, text[i:end]))
        i = text.find("{", end)
    return found


def _first_object(body: str) -> Any:
    start = body.find("{")
    if start < 0:
        return None
    try:
        return _DECODER.raw_decode(body, start)[0]
    except Exception:  # malformed or nested too deep: reported as not a tool call
        return None
