"""What the harness accepts from the pygame host: each message must fit what was asked of it.

The host (:mod:`playsuite.runtimes.pygame_host`) lives inside the game's own process, and so
does its end of the protocol pipe. The host keeps it on a close-on-exec descriptor far above the
ones games use, but game code can still find it (``/proc/self/fd`` lists it) and write to it; a
message proves nothing about who wrote it. So the harness checks every header against what it
asked for *before* reading what follows it, and a message that does not fit ends the game as a
``sandbox_violation``:

* the header is at most :data:`MAX_HEADER_BYTES` of JSON describing an object;
* its type is one the harness waits for: ``ready`` or ``exit`` while launching, ``frames`` or
  ``exit`` during a slice;
* ``count`` is what was asked (1 for ``ready``, the slice's frames for ``frames``, at most that
  for ``exit`` and for a ``frames`` message marked ``stalled``, the host's report of a hung
  slice);
* ``width`` and ``height``: at launch within :data:`MAX_SCREEN` (or the row's ``screen`` where
  that is larger), so a row whose ``screen`` is a rough guess still launches while a forged
  10000x10000 screen does not; afterwards exactly the size accepted at launch (the host scales
  every frame to it);
* ``payload`` is exactly ``count * width * height * 3`` bytes.

A forged header therefore costs the harness at most a megabyte, never the size it claims, and
the worker's other games are untouched. What a game can still do is send a well-formed, in-bound
message about itself (a wrong frame, a wrong probe value): that only misreports its own episode,
which the game controls anyway.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from playsuite.runtimes.base import GameFailure, RunStatus

#: Largest header accepted. Real ones are a few hundred bytes plus the probe values.
MAX_HEADER_BYTES = 1 << 20
#: Largest screen (each side) accepted at launch unless the row declares a larger one: 4K.
MAX_SCREEN = (3840, 2160)
CHANNELS = 3  # RGB


class ProtocolViolation(GameFailure):
    """The game process sent something the host never would: the game is stopped."""

    def __init__(self, message: str) -> None:
        text = f"the game broke the host protocol: {message}"
        super().__init__(RunStatus.SANDBOX_VIOLATION, text)


@dataclass(frozen=True)
class Expected:
    """What the answer to one command may be: its types, its frame count and its screen."""

    types: frozenset[str]
    frames: int
    size: tuple[int, int] | None  # the screen accepted at launch; None while launching
    ceiling: tuple[int, int] = MAX_SCREEN  # each side's bound while the screen is not known

    @classmethod
    def launch(cls, requested: tuple[int, int] | None) -> Expected:
        """The first message: one frame, no larger than 4K or the row's screen if larger."""
        width, height = requested or MAX_SCREEN
        ceiling = (max(width, MAX_SCREEN[0]), max(height, MAX_SCREEN[1]))
        return cls(frozenset({"ready", "exit"}), 1, None, ceiling)

    @classmethod
    def slice(cls, frames: int, size: tuple[int, int]) -> Expected:
        """After an ``act`` command: exactly ``frames`` frames of the screen accepted at launch."""
        return cls(frozenset({"frames", "exit"}), frames, size)


def check_length(length: int) -> None:
    """Refuse a header length before reading the header."""
    if not 0 < length <= MAX_HEADER_BYTES:
        raise ProtocolViolation(f"a {length}-byte header (at most {MAX_HEADER_BYTES})")


def parse_header(data: bytes) -> dict[str, Any]:
    """The header as a dict; anything else (bad JSON, a list, nesting deep enough to recurse
    out of the parser) is a violation, not a harness error."""
    try:
        header = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ProtocolViolation(f"a header that is not JSON ({type(exc).__name__})") from None
    if not isinstance(header, dict):
        raise ProtocolViolation(f"a header that is a {type(header).__name__}, not an object")
    return header


def check_header(header: dict[str, Any], expected: Expected) -> int:
    """Check ``header`` against ``expected``; the payload size it announces, now safe to read."""
    kind = header.get("type")
    if kind not in expected.types:
        raise ProtocolViolation(f"a {kind!r} message where {sorted(expected.types)} was expected")
    _check_fields(header, kind)
    count = _int(header, "count", 0 if kind == "exit" else None)
    wanted = 1 if kind == "ready" else expected.frames
    # An exit, or the stall watchdog's report of a hung slice, carries the frames so far.
    partial = kind == "exit" or (kind == "frames" and header.get("stalled") is True)
    if count != wanted and not (partial and 0 <= count <= wanted):
        raise ProtocolViolation(f"{count} frames in a {kind!r} message ({wanted} were asked for)")
    payload = _int(header, "payload")
    frame_bytes = _frame_bytes(header, expected) if count else 0
    if payload != count * frame_bytes:
        raise ProtocolViolation(
            f"a {payload}-byte payload for {count} frames of {frame_bytes} bytes each"
        )
    return payload


def _check_fields(header: dict[str, Any], kind: str) -> None:
    """The other fields the harness reads have the types the host writes."""
    t = header.get("t")
    if (t is not None or kind != "exit") and not _game_time(t):
        raise ProtocolViolation(f"game time {t!r}")
    if not isinstance(header.get("probes", {}), dict):
        raise ProtocolViolation("probes that are not an object")
    if not isinstance(header.get("stalled", False), bool):
        raise ProtocolViolation("a 'stalled' flag that is not a boolean")
    if kind == "exit":
        code, error = header.get("code"), header.get("error")
        if not (code is None or isinstance(code, int)):
            raise ProtocolViolation(f"an exit message with code {code!r}")
        if not (error is None or isinstance(error, str)):
            raise ProtocolViolation("an exit message whose error is not text")
        if not isinstance(header.get("launch", False), bool):
            raise ProtocolViolation("an exit message whose 'launch' is not a boolean")


def _game_time(value: object) -> bool:
    """A finite, non-negative number of seconds."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and value >= 0


def _frame_bytes(header: dict[str, Any], expected: Expected) -> int:
    """Bytes of one frame of the screen the header declares, once that screen is in bounds."""
    size = (_int(header, "width"), _int(header, "height"))
    if expected.size is not None:
        if size != expected.size:
            raise ProtocolViolation(
                f"a {size[0]}x{size[1]} frame on a {expected.size[0]}x{expected.size[1]} screen"
            )
    elif not (0 < size[0] <= expected.ceiling[0] and 0 < size[1] <= expected.ceiling[1]):
        raise ProtocolViolation(
            f"a {size[0]}x{size[1]} screen (at most {expected.ceiling[0]}x{expected.ceiling[1]})"
        )
    return size[0] * size[1] * CHANNELS


def _int(header: dict[str, Any], name: str, default: int | None = None) -> int:
    """An integer field (``True`` is not one); missing only where ``default`` allows it."""
    value = header.get(name, default)
    if type(value) is not int:
        raise ProtocolViolation(f"{name} {value!r} is not an integer")
    return value
