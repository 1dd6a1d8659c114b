"""Pick the runtime class for a game row: ``game.runtime`` -> implementation.

Classes are named by import path so that importing the factory does not import Playwright or
X11 libraries for a run that only plays pygame games. Adding a runtime is adding a line here.
"""

from __future__ import annotations

import importlib

from playsuite.corpus import GameEntry
from playsuite.runtimes.base import Runtime, RuntimeOptions

RUNTIMES: dict[str, str] = {
    "pygame": "playsuite.runtimes.pygame_runtime:PygameRuntime",
    "browser": "playsuite.runtimes.browser_runtime:BrowserRuntime",
    "native": "playsuite.runtimes.native_runtime:NativeRuntime",
}


def runtime_class(kind: str) -> type[Runtime]:
    try:
        target = RUNTIMES[kind]
    except KeyError:
        raise ValueError(f"no runtime {kind!r}; known: {', '.join(sorted(RUNTIMES))}") from None
    module, name = target.split(":")
    cls = getattr(importlib.import_module(module), name)
    if not (isinstance(cls, type) and issubclass(cls, Runtime)):
        raise TypeError(f"{target} is not a Runtime")
    return cls


def make_runtime(game: GameEntry, options: RuntimeOptions) -> Runtime:
    """A not-yet-started runtime for ``game``; call ``start()`` (or use it as a context)."""
    return runtime_class(game.runtime)(game, options)
