"""One Chromium per game worker, reused across its browser games, started inside the sandbox.

Launching Chromium and Playwright's driver costs about a second; a fresh browser context per game
costs a fraction of that. :class:`WorkerBrowser` owns both and is handed to each
:class:`~playsuite.runtimes.browser_runtime.BrowserRuntime` through ``RuntimeOptions.browser``
(:class:`~playsuite.runtimes.resources.WorkerResources` creates it). Chromium itself runs through
a wrapper script that starts it in the game sandbox.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from playsuite.runtimes import procs

log = logging.getLogger(__name__)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",
)


class WorkerBrowser:
    """One Chromium (and its Playwright driver) owned by a worker, reused for many games.

    Launching costs about a second; a fresh context per game costs a fraction of that. The worker
    creates one, passes it to each browser runtime through ``RuntimeOptions.browser``
    and closes it when the worker ends. Use from one thread only (Playwright's sync API).
    """

    def __init__(
        self,
        executable: str = CHROMIUM,
        extra_args: tuple[str, ...] = (),
        *,
        sandbox: str = "bwrap",
        image: str | None = None,
        scratch: Path | None = None,
    ) -> None:
        self.executable = executable
        self.args = [*CHROMIUM_ARGS, *extra_args]
        self.sandbox = sandbox
        self.image = image
        self._scratch = scratch
        self._own_scratch: Path | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self.pid: int | None = None  # Chromium's browser process
        self.driver_pid: int | None = None  # Playwright's node driver
        self.launch_s: float | None = None

    @property
    def browser(self) -> Any:
        """The Playwright ``Browser``, launched on first use."""
        if self._browser is None or not self._browser.is_connected():
            self._launch()
        return self._browser

    def _launch(self) -> None:
        from playwright.sync_api import sync_playwright

        self.close()
        t0 = time.perf_counter()
        before = set(procs.descendants(os.getpid()))
        executable = self._sandboxed_executable()
        self._playwright = sync_playwright().start()
        try:
            self._browser = self._playwright.chromium.launch(
                executable_path=executable, args=self.args, headless=True
            )
        except Exception:
            self.close()
            raise
        for pid in procs.descendants(os.getpid()):
            if pid in before:
                continue
            argv = " ".join(procs.cmdline(pid))
            if self.driver_pid is None and "playwright" in argv and "run-driver" in argv:
                self.driver_pid = pid
            name = Path(procs.cmdline(pid)[0]).name if procs.cmdline(pid) else ""
            if self.pid is None and name == "chromium" and "--type=" not in argv:
                self.pid = pid
        self.launch_s = time.perf_counter() - t0

    def _sandboxed_executable(self) -> str:
        """Chromium itself, or a wrapper script that starts it inside the sandbox.

        The sandbox has no network at all (so nothing a page does can reach the outside even if
        request routing missed it), no view of the repository or other runs, and a private HOME.
        Pages reach their files only through the runtime's request routing.
        """
        if self.sandbox == "none":
            return self.executable
        from dataclasses import replace

        from playsuite.sandbox import game_policy, write_wrapper

        if self._scratch is None:
            self._own_scratch = Path(tempfile.mkdtemp(prefix="playsuite-browser-"))
        scratch = self._scratch or self._own_scratch
        assert scratch is not None
        policy = replace(game_policy(scratch, None), share_sys=True)  # Chromium probes /sys
        wrapper = write_wrapper(
            scratch / "chromium-sandboxed.sh",
            policy,
            self.executable,
            self.sandbox,
            image=self.image,
        )
        return str(wrapper)

    def renderer_pids(self) -> list[int]:
        """Renderer processes of this browser: where page JavaScript runs."""
        if self.pid is None:
            return []
        # Zygote children rewrite their title: the arguments come back as one string. The
        # browser's own WebUI renderer is left alone.
        out = []
        for pid in procs.descendants(self.pid):
            argv = " ".join(procs.cmdline(pid))
            if "--type=renderer" in argv and "--top-chrome-webui" not in argv:
                out.append(pid)
        return out

    def new_context(self, width: int, height: int) -> Any:
        return self.browser.new_context(
            viewport={"width": width, "height": height},
            device_scale_factor=1,
            service_workers="block",
            accept_downloads=False,
        )

    def close(self) -> None:
        """Close the browser and stop the driver; every Chromium process exits. Idempotent."""
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        if browser is not None:
            try:
                browser.close()
            except Exception as exc:  # already gone: the driver reaps it
                log.debug("browser.close: %s", exc)
        if playwright is not None:
            try:
                playwright.stop()
            except Exception as exc:
                log.debug("playwright.stop: %s", exc)
        # Normally nothing is left; a crashed driver can leave Chromium behind.
        for pid in (self.driver_pid, self.pid):
            if pid is not None and procs.alive(pid):
                procs.kill_tree(pid, grace_s=1.0)
        self.pid = self.driver_pid = None
        if self._own_scratch is not None:
            shutil.rmtree(self._own_scratch, ignore_errors=True)
            self._own_scratch = None

    def __enter__(self) -> WorkerBrowser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
