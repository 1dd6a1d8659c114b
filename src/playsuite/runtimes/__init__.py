"""Game runtimes (pygame, browser, native) behind one interface; see :mod:`.base`."""

from playsuite.runtimes.base import (
    GameFailure,
    Observation,
    RunStatus,
    Runtime,
    RuntimeOptions,
    frames_per_slice,
)

__all__ = [
    "GameFailure",
    "Observation",
    "RunStatus",
    "Runtime",
    "RuntimeOptions",
    "frames_per_slice",
]
