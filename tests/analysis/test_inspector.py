"""The inspection page in real Chromium: it loads, plays the H.264 video, and seeks on click."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from playsuite.analysis.inspector import build_site, episode_data, write_episode_page
from playsuite.runtimes.browser_runtime import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        yield b
        b.close()


def test_episode_data_times_steps_by_frame(episode: Path, tmp_path: Path, make_judgement) -> None:
    j = make_judgement(tmp_path / "j.json")
    data = episode_data(episode, str(j))
    assert [s["t"] for s in data["steps"]] == [0.0, 3.0, 6.0, 9.0]
    assert data["duration"] == pytest.approx(12.0, abs=0.2)
    assert [m["t_sec"] for m in data["milestones"]] == [2.0, 7.0]
    assert data["level"] == 2


def test_not_an_episode_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"meta\.json"):
        episode_data(tmp_path, None)


@pytest.mark.browser
def test_page_plays_and_milestone_click_seeks(
    browser, episode: Path, tmp_path: Path, make_judgement
) -> None:
    j = make_judgement(tmp_path / "judgements" / "tiny-game.json")
    page_path = write_episode_page(episode, tmp_path / "inspect" / "tiny-game.html", str(j))
    page = browser.new_page()
    page.goto(page_path.resolve().as_uri())
    page.wait_for_function("document.getElementById('video').readyState >= 1", timeout=15000)
    assert page.evaluate("document.getElementById('video').error") is None
    assert page.evaluate("document.getElementById('video').duration") == pytest.approx(12, abs=0.3)
    # the raw response is shown as text, never parsed as markup
    assert "</script><b>1</b>" in page.inner_text("#steps")
    assert page.locator("#steps tr.step-row").count() == 4
    assert page.locator("#timeline .milestone").count() == 2
    assert page.evaluate("document.getElementById('video').currentTime") == 0
    page.locator("#timeline .milestone").nth(1).click()
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 7) < 0.05")
    page.locator("#milestones tr.milestone-row").first.click()
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 2) < 0.05")
    page.locator("#steps tr.step-row").nth(3).click()
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 9) < 0.05")
    # the step being shown is highlighted once the video reports its time
    page.wait_for_function(
        "document.querySelector('#steps tr.current') && "
        "document.querySelector('#steps tr.current').dataset.t === '9'"
    )
    page.close()


@pytest.mark.browser
def test_index_filters_runs(browser, tmp_path: Path, make_episode, make_judgement) -> None:
    runs = tmp_path / "runs"
    for preset in ("random", "explorer"):
        make_episode(runs / "local" / preset / "k0-hz0.33-base" / "tiny-game", preset=preset)
    make_judgement(tmp_path / "judge" / "local" / "random" / "k0-hz0.33-base" / "tiny-game.json")
    scores = pd.DataFrame(
        {
            "corpus": "local",
            "preset": ["random", "explorer", "explorer"],
            "condition": "k0-hz0.33-base",
            "game": ["tiny-game", "tiny-game", "other-game"],
            "genre": ["Puzzle", "Puzzle", "Action"],
            "level": [2, 1, None],
            "status": ["ok", "ok", "crashed"],
        }
    )
    index = build_site(scores, runs, tmp_path / "judge", tmp_path / "site")
    page = browser.new_page()
    page.goto(index.resolve().as_uri())
    assert page.locator("tr.run").count() == 3
    page.select_option("#f-preset", "explorer")
    assert page.locator("tr.run").count() == 2
    page.select_option("#f-genre", "Action")
    assert page.locator("tr.run").count() == 1
    page.select_option("#f-genre", "")
    page.select_option("#f-level", "1")
    assert page.locator("tr.run").count() == 1
    page.select_option("#f-preset", "")
    page.select_option("#f-level", "")
    page.fill("#f-game", "tiny")
    assert page.locator("tr.run").count() == 2
    page.select_option("#f-preset", "random")
    page.click("tr.run a")
    page.wait_for_function(
        "document.getElementById('video') && document.getElementById('video').readyState >= 1"
    )
    assert page.locator("#timeline .milestone").count() == 2
    page.close()


@pytest.mark.slow
def test_cli_writes_page(episode: Path, tmp_path: Path, make_judgement) -> None:
    j = make_judgement(tmp_path / "j.json")
    out = tmp_path / "page" / "ep.html"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "playsuite.cli",
            "inspect",
            str(episode),
            "--judgement",
            str(j),
            "--out",
            str(out),
            "--copy-video",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "page" / "ep.mp4").stat().st_size > 0
    assert 'src="ep.mp4"' in out.read_text()
    bad = subprocess.run(
        [sys.executable, "-m", "playsuite.cli", "inspect", str(tmp_path), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "meta.json" in bad.stderr
