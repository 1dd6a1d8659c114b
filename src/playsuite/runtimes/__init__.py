"""Game runtimes (pygame, browser, native) behind one interface; see :mod:`.base`."""

from playsuite.runtimes.base import (
    GameExited,
    GameFailure,
    Observation,
    RunStatus,
    Runtime,
    RuntimeOptions,
    frames_per_slice,
)

__all__ = [
    "GameExited",
    "GameFailure",
    "Observation",
    "RunStatus",
    "Runtime",
    "RuntimeOptions",
    "frames_per_slice",
]
