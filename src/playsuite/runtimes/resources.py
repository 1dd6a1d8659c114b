"""What a worker keeps running across the games it plays, and which runtime needs what.

Reusing these is what makes a game's launch cheap: a fresh browser context instead of a fresh
Chromium, a window on a running Xvfb instead of a new X server, shaders compiled once per worker
instead of once per game. This module is the one place that knows that browser games want a
Chromium and native or OpenGL games want an X display and a Mesa cache; the harness's workers,
the catalog's launch dry-run and the launch test all ask it instead of branching on runtimes.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from playsuite.corpus import GameEntry
from playsuite.runtimes.base import RuntimeOptions

if TYPE_CHECKING:
    from playsuite.runtimes.browser_worker import WorkerBrowser
    from playsuite.runtimes.xdisplay import VirtualDisplay


def needs_browser(game: GameEntry) -> bool:
    """A page played in Chromium."""
    return game.runtime == "browser"


def needs_display(game: GameEntry) -> bool:
    """A game that draws through X (native builds, pygame games that ask for OpenGL)."""
    return game.runtime == "native" or bool(game.options.get("opengl"))


class WorkerResources:
    """A Chromium, an X display and a Mesa shader cache, each created on a game's first need.

    ``scratch`` is the worker's private folder (the browser's sandbox files, the shader cache).
    ``sandbox``/``apptainer_image`` are the backend the shared Chromium runs in. ``warm`` launches
    a new Chromium at once rather than inside the first game's timed start (the launch test).
    Close it (or use it as a context manager) to stop what it started.
    """

    def __init__(
        self,
        scratch: Path,
        *,
        sandbox: str = "bwrap",
        apptainer_image: str | None = None,
        warm: bool = False,
    ) -> None:
        self.scratch = Path(scratch)
        self.sandbox = sandbox
        self.apptainer_image = apptainer_image
        self.warm = warm
        self._browser: WorkerBrowser | None = None
        self._display: VirtualDisplay | None = None

    def browser(self) -> WorkerBrowser:
        """The worker's Chromium (started on first call)."""
        if self._browser is None:
            from playsuite.runtimes.browser_worker import WorkerBrowser

            self._browser = WorkerBrowser(
                sandbox=self.sandbox,
                image=self.apptainer_image,
                scratch=self.scratch / "browser-sandbox",
            )
            if self.warm:
                self._browser.browser  # noqa: B018 (launches Chromium now)
        return self._browser

    def display(self) -> VirtualDisplay:
        """The worker's Xvfb (started again when it died)."""
        if self._display is None or not self._display.is_alive():
            from playsuite.runtimes.xdisplay import VirtualDisplay

            self._display = VirtualDisplay().start()  # 1920x1080: any game window fits
        return self._display

    def options_for(self, game: GameEntry, options: RuntimeOptions) -> RuntimeOptions:
        """``options`` with the shared resources ``game``'s runtime uses filled in."""
        options = replace(options, apptainer_image=options.apptainer_image or self.apptainer_image)
        if needs_browser(game):
            options = replace(options, browser=self.browser())
        if needs_display(game):
            options = replace(
                options, display=self.display().name, mesa_cache=self.scratch / "mesa-cache"
            )
        return options

    def close(self) -> None:
        """Stop the browser and the display; safe to call twice."""
        if self._browser is not None:
            with contextlib.suppress(Exception):
                self._browser.close()
        if self._display is not None:
            with contextlib.suppress(Exception):
                self._display.stop()
        self._browser = self._display = None

    def __enter__(self) -> WorkerResources:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
