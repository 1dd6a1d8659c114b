"""Pictures of the analysis pages, taken in Debian's Chromium through Playwright.

The README shows an inspection page and the dashboard as the workflow made them; these functions
take those pictures (rule ``screenshot_pages``). An inspection page is shown at a moment worth
seeing: the last judge milestone when there is one (clicked on the timeline, as a reader would),
else the middle of the video, once the browser has decoded that frame.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from playsuite.analysis.inspector import episode_page_name
from playsuite.runtimes.browser_worker import CHROMIUM, CHROMIUM_ARGS

#: Viewport of the pictures: wide enough for the inspection page's two columns.
VIEWPORT = {"width": 1280, "height": 800}
#: Milliseconds a page gets to load its video or draw itself.
TIMEOUT_MS = 30_000


def showcase_page(scores: pd.DataFrame, inspect_dir: str | os.PathLike[str]) -> Path:
    """The inspection page to picture: of the ``ok`` episodes that have a page, one with the
    highest level (first in corpus, preset, condition, game order); any episode with a page when
    none is ``ok``. An error when the site has no episode page."""
    inspect_dir = Path(inspect_dir)
    df = scores.assign(_level=pd.to_numeric(scores["level"], errors="coerce").fillna(-1))
    df = df.assign(_ok=df["status"] == "ok")
    df = df.sort_values(
        ["_ok", "_level", "corpus", "preset", "condition", "game"],
        ascending=[False, False, True, True, True, True],
    )
    for row in df.itertuples(index=False):
        page = inspect_dir / episode_page_name(row.corpus, row.preset, row.condition, row.game)
        if page.is_file():
            return page
    raise FileNotFoundError(f"{inspect_dir}: no episode page to picture")


@contextmanager
def _chromium(browser: Any = None) -> Iterator[Any]:
    """``browser`` when given (a Playwright Browser the caller holds), else one of our own."""
    if browser is not None:
        yield browser
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        own = p.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            yield own
        finally:
            own.close()


def capture_inspector(
    page: str | os.PathLike[str], png: str | os.PathLike[str], *, browser: Any = None
) -> Path:
    """A picture of an inspection page with its video stopped at a moment worth seeing."""
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    with _chromium(browser) as chromium:
        tab = chromium.new_page(viewport=VIEWPORT)
        try:
            tab.goto(Path(page).resolve().as_uri())
            tab.wait_for_function(
                "document.getElementById('video').readyState >= 1", timeout=TIMEOUT_MS
            )
            dots = tab.locator("#timeline .milestone")
            if dots.count():
                dots.last.click()
            else:
                tab.evaluate(
                    "(() => { const v = document.getElementById('video');"
                    " v.currentTime = v.duration / 2; })()"
                )
            tab.wait_for_function(
                "(() => { const v = document.getElementById('video');"
                " return !v.seeking && v.readyState >= 2; })()",
                timeout=TIMEOUT_MS,
            )
            tab.screenshot(path=str(png))
        finally:
            tab.close()
    return png


def capture_dashboard(
    page: str | os.PathLike[str],
    png: str | os.PathLike[str],
    tab: str = "runs",
    *,
    browser: Any = None,
) -> Path:
    """A picture of a dashboard page showing its tab ``tab`` (``overview``, ``figures``,
    ``report``, ``runs``)."""
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    with _chromium(browser) as chromium:
        view = chromium.new_page(viewport=VIEWPORT)
        try:
            view.goto(f"{Path(page).resolve().as_uri()}#{tab}")
            view.wait_for_selector(f"section#tab-{tab}.active", timeout=TIMEOUT_MS)
            view.screenshot(path=str(png))
        finally:
            view.close()
    return png
