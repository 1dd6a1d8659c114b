"""When a launching game's picture has settled: the readiness rule shared by every runtime.

The first non-blank frame is often not the game yet: a "Loading..." screen, a splash logo, a
fade-in. Taking it as the first observation wastes the agent's first look. So a runtime watches
the frames a launching game shows, in game time where it has one, and calls the game ready when
the picture has held for ``settle_s``: no frame since then differs from it by more than a small
share of its pixels (a blinking cursor or a bobbing sprite does not count, a new screen does).
A title screen that never holds still (a scrolling background) is taken ``max_s`` after the first
non-blank frame, so readiness stays bounded; the runtime's own launch timeout still applies.
``settle_s`` 0 restores the old rule: ready at the first non-blank frame.

A static loading screen shown for longer than ``settle_s`` is still taken for the game: no rule
can tell it from a static menu without seeing the future.

Standard library only: the pygame host imports this module inside the sandbox (it is bound
beside it), and frames are RGB ``bytes`` (the harness side passes ``ndarray.tobytes()``).
"""

from __future__ import annotations

SAMPLES = 4096  # about this many pixels are compared per frame
TOLERANCE = 24  # a pixel counts as changed when a channel moved by more than this
NEW_PICTURE = 0.02  # more than this share of compared pixels changed: a different picture


def is_blank(frame: bytes) -> bool:
    """Every pixel the same colour (nothing drawn yet), or no pixels."""
    return len(frame) < 3 or frame.count(frame[:3]) * 3 == len(frame)


def changed_share(a: bytes, b: bytes) -> float:
    """Share of sampled pixels that differ between two RGB frames (1.0 when the sizes differ).

    Pixels are sampled at an odd stride through the buffer, so the samples spread over rows and
    columns instead of lining up in one column.
    """
    if len(a) != len(b) or not a:
        return 1.0
    if a == b:
        return 0.0
    pixels = len(a) // 3
    stride = 3 * (max(1, pixels // SAMPLES) | 1)
    changed = total = 0
    for i in range(0, 3 * pixels, stride):
        total += 1
        if (
            abs(a[i] - b[i]) > TOLERANCE
            or abs(a[i + 1] - b[i + 1]) > TOLERANCE
            or abs(a[i + 2] - b[i + 2]) > TOLERANCE
        ):
            changed += 1
    return changed / total


class Settle:
    """Frames of a launching game, seen in time order; :meth:`ready` once the picture holds.

    ``see(frame, t)`` records the frame shown at time ``t`` (seconds, game time where the
    runtime has it). The anchor is the picture the current hold started with; a frame that
    differs from it by more than :data:`NEW_PICTURE` starts a new hold, a blank frame ends it.
    """

    def __init__(self, settle_s: float, max_s: float) -> None:
        if settle_s < 0 or max_s < 0:
            raise ValueError("settle_s and max_s must not be negative")
        self.settle_s = float(settle_s)
        self.max_s = float(max_s)
        self.anchor: bytes | None = None
        self.anchor_t = 0.0
        self.first_t: float | None = None  # the first non-blank frame
        self.holds = 0  # pictures seen so far (a loading screen then the menu: 2)

    @classmethod
    def from_config(cls, config: dict) -> Settle:
        """From the pygame host's launch config (``ready_settle_s``, ``ready_max_s``; absent:
        ready at the first non-blank frame)."""
        return cls(float(config.get("ready_settle_s", 0.0)), float(config.get("ready_max_s", 0.0)))

    def see(self, frame: bytes, t: float) -> None:
        if is_blank(frame):
            self.anchor = None
            return
        if self.first_t is None:
            self.first_t = t
        if self.anchor is None or changed_share(self.anchor, frame) > NEW_PICTURE:
            self.anchor, self.anchor_t = frame, t
            self.holds += 1

    def due(self) -> float | None:
        """When the game is ready unless a new picture comes first; None while blank."""
        if self.anchor is None or self.first_t is None:
            return None
        return min(self.anchor_t + self.settle_s, self.first_t + self.max_s)

    def ready(self, t: float) -> bool:
        """The last frame seen is not blank and the picture has held (or ``max_s`` passed)."""
        due = self.due()
        return due is not None and t >= due - 1e-9
