"""The results dashboard in real Chromium, over an episode this test really plays and judges.

A pygame fixture game is played by the `explorer` baseline (`playsuite play`) and judged by the
`frame` judge (`playsuite judge`), laid out as the workflow lays out a results tree, with two
more runs that have no episode directory. `playsuite dashboard` builds the page from that tree;
the browser test then goes through it as a reader would: tabs, figures, filters, an episode's
inspection page, and its video playing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from playsuite.analysis.dashboard import figure_title, render_markdown, run_browser_rows
from playsuite.analysis.inspector import build_site
from playsuite.analysis.page_capture import capture_dashboard, capture_inspector, showcase_page
from playsuite.records.scores import scores_frame, write_scores
from playsuite.runtimes.browser_runtime import CHROMIUM, CHROMIUM_ARGS

REPO = Path(__file__).resolve().parents[2]
PLAYSUITE = [sys.executable, "-m", "playsuite.cli"]
COND = "k0-hz0.33-base"
MAIN_MD = "| family | preset | local k0 |\n|---|---|---|\n| baseline | explorer | **{level}** |\n"
REPORT_MD = (
    "# Reproduction report (frame judge)\n\n"
    "| key | published |\n|---|---|\n| x <script>alert(1)</script> | 1 |\n"
)


def score_row(preset: str, game: str, level: int | None, status: str, genre: str) -> dict:
    return {
        "corpus": "local",
        "preset": preset,
        "family": "baseline",
        "condition": COND,
        "history_k": 0,
        "hz": 0.33,
        "variant": "base",
        "game": game,
        "genre": genre,
        "judge": "frame",
        "level": level,
        "status": status,
    }


def write_figure(path: Path, seed: int) -> None:
    """A PNG standing for a figure (what the page does with it does not depend on its content)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pixels = np.random.default_rng(seed).integers(0, 255, (120, 200, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(path)
    path.with_suffix(".pdf").write_bytes(b"%PDF-1.4\n")


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PLAYSUITE, *args], capture_output=True, text=True, timeout=600, cwd=cwd, check=False
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results tree: one real played and judged episode, the analysis outputs beside it."""
    tmp = tmp_path_factory.mktemp("dashboard")
    results = tmp / "results"
    catalog = tmp / "games.yaml"
    row = {
        "id": "probe-a",
        "title": "Probe game",
        "source": "local",
        "package": str(REPO / "tests" / "fixtures" / "probe_game"),
        "runtime": "pygame",
        "entry": "main.py",
        "controls": "Arrow keys move the square, Space scores a point.",
        "genre": "Puzzle",
    }
    catalog.write_text(yaml.safe_dump({"games": [row]}))
    episode = results / "runs/local/explorer" / COND / "probe-a"
    played = run(
        "play",
        "--catalog",
        str(catalog),
        "--game",
        "probe-a",
        "--agent",
        "explorer",
        "--steps",
        "4",
        "--corpus",
        "local",
        "--out",
        str(episode),
        "--games-dir",
        str(tmp / "games"),
    )
    assert played.returncode == 0, played.stderr[-3000:]
    judgement = results / "judgements/frame/local/explorer" / COND / "probe-a.json"
    judged = run("judge", "--judge", "frame", str(episode), "--out", str(judgement))
    assert judged.returncode == 0, judged.stderr[-3000:]
    level = json.loads(judgement.read_text())["level"]
    scores = scores_frame(
        [
            score_row("explorer", "probe-a", level, "ok", "Puzzle"),
            score_row("random", "probe-a", None, "crashed", "Puzzle"),
            score_row("random", "other-game", 1, "ok", "Action"),
        ]
    )
    write_scores(scores, results / "scores/frame.tsv")
    build_site(scores, results / "runs", results / "judgements/frame", results / "inspect/frame")
    (results / "tables/frame").mkdir(parents=True)
    (results / "tables/frame/main.md").write_text(MAIN_MD.format(level=level))
    (results / "report/frame").mkdir(parents=True)
    (results / "report/frame/reproduction.md").write_text(REPORT_MD)
    write_figure(results / "figures/efficiency.png", 0)
    write_figure(results / "figures/frame/stability.png", 1)
    write_figure(results / "figures/frame/ablation_history.png", 2)
    return results


@pytest.fixture(scope="module")
def dashboard(results: Path) -> Path:
    out = run("dashboard", "--judge", "frame", "--results", str(results))
    assert out.returncode == 0, out.stderr
    page = results / "dashboard/frame/index.html"
    assert out.stdout.strip() == str(page)
    return page


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        yield b
        b.close()


def test_figure_titles_and_markdown_escaping() -> None:
    assert figure_title("genre_heatmap_local") == "Mean progress by genre and model: local"
    assert figure_title("ablation_history") == "Ablation: history"
    assert figure_title("something_new") == "something_new"
    html = render_markdown("| a |\n|---|\n| <img src=x onerror=alert(1)> **b** |\n")
    assert "<table>" in html and "<strong>b</strong>" in html
    assert "<img" not in html and "&lt;img" in html


def test_run_rows_link_only_pages_that_exist(tmp_path: Path) -> None:
    scores = scores_frame(
        [score_row("random", "a-game", 2, "ok", "Puzzle"), score_row("random", "b", None, "x", "")]
    )
    page = tmp_path / "inspect/local/random" / COND / "a-game.html"
    page.parent.mkdir(parents=True)
    page.write_text("<html></html>")
    rows = run_browser_rows(scores, tmp_path / "inspect", tmp_path / "dashboard/frame")
    assert [r["page"] for r in rows] == [f"../../inspect/local/random/{COND}/a-game.html", None]
    assert rows[0]["level"] == 2 and rows[1]["level"] is None


def test_showcase_is_the_best_judged_episode_with_a_page(tmp_path: Path) -> None:
    scores = scores_frame(
        [
            score_row("random", "low", 1, "ok", "Puzzle"),
            score_row("random", "high", 3, "ok", "Puzzle"),
            score_row("random", "unpaged", 4, "ok", "Puzzle"),
            score_row("random", "broken", None, "crashed", "Puzzle"),
        ]
    )
    for game in ("low", "high", "broken"):
        page = tmp_path / f"local/random/{COND}/{game}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text("")
    assert showcase_page(scores, tmp_path).name == "high.html"
    with pytest.raises(FileNotFoundError, match="no episode page"):
        showcase_page(scores, tmp_path / "nowhere")


@pytest.mark.slow
def test_cli_needs_the_analysis_outputs(tmp_path: Path) -> None:
    (tmp_path / "scores").mkdir()
    write_scores(
        scores_frame([score_row("random", "g", 1, "ok", "Puzzle")]), tmp_path / "scores/frame.tsv"
    )
    out = run("dashboard", "--judge", "frame", "--results", str(tmp_path))
    assert out.returncode == 2 and "main.md does not exist" in out.stderr


@pytest.mark.slow
@pytest.mark.games
@pytest.mark.browser
def test_dashboard_filters_runs_and_opens_a_playing_episode(browser, dashboard: Path) -> None:
    page = browser.new_page()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(dashboard.resolve().as_uri())
    assert page.title() == "PlaySuite: frame judge"
    assert page.locator("section#tab-overview.active").count() == 1
    assert page.locator("#main-table table td strong").count() == 1
    assert "episodes: 3" in page.inner_text("#summary")

    page.click("nav a[data-tab=figures]")
    assert page.locator("section#tab-figures.active").count() == 1
    assert page.locator("#figures figure").count() == 3  # efficiency first, then the judge's
    assert page.locator("#figures figcaption").first.inner_text().startswith("Efficiency")
    widths = page.eval_on_selector_all("#figures img", "els => els.map(e => e.naturalWidth)")
    assert widths == [200, 200, 200]

    page.click("nav a[data-tab=report]")
    report = page.inner_text("#report-body")
    assert "<script>alert(1)</script>" in report  # shown as text, never run
    assert page.locator("#report-body script").count() == 0

    page.click("nav a[data-tab=runs]")
    assert page.locator("tr.run").count() == 3
    page.select_option("#f-preset", "random")
    assert page.locator("tr.run").count() == 2
    page.select_option("#f-status", "ok")
    assert page.locator("tr.run").count() == 1
    assert page.inner_text("#count") == "1 of 3 runs"
    page.select_option("#f-preset", "")
    page.select_option("#f-status", "")
    page.select_option("#f-genre", "Puzzle")
    page.fill("#f-game", "probe")
    assert page.locator("tr.run").count() == 2
    page.select_option("#f-preset", "explorer")
    assert page.locator("tr.run").count() == 1
    assert page.locator("tr.run a").count() == 1  # only the played episode has a page

    # the filters also come from the URL, and the tab from its fragment
    page.goto(dashboard.resolve().as_uri() + "?status=crashed#runs")
    assert page.locator("section#tab-runs.active").count() == 1
    assert page.locator("tr.run").count() == 1
    assert page.locator("tr.run a").count() == 0  # a run without an episode links nowhere

    page.goto(dashboard.resolve().as_uri() + "?preset=explorer#runs")
    page.click("tr.run a")
    page.wait_for_url("**/inspect/frame/local/explorer/k0-hz0.33-base/probe-a.html")
    page.wait_for_function("document.getElementById('video').readyState >= 2", timeout=30000)
    assert page.evaluate("document.getElementById('video').error") is None
    assert page.locator("#steps tr.step-row").count() == 4
    duration = page.evaluate("document.getElementById('video').duration")
    assert duration == pytest.approx(12.0, abs=0.5)  # 4 steps of 3 s of game time
    page.evaluate(
        "(() => { const v = document.getElementById('video'); v.muted = true; return v.play(); })()"
    )
    page.wait_for_function("document.getElementById('video').currentTime > 1", timeout=30000)
    assert page.evaluate("document.getElementById('video').readyState") >= 2
    # everything came from the results tree or the page itself: no network at view time
    assert requested and all(u.startswith(("file:", "data:")) for u in requested), requested
    page.close()


@pytest.mark.slow
@pytest.mark.games
@pytest.mark.browser
def test_pictures_of_the_pages(browser, dashboard: Path, results: Path, tmp_path: Path) -> None:
    from playsuite.analysis.scores import read_scores

    page = showcase_page(read_scores(results / "scores/frame.tsv"), results / "inspect/frame")
    assert page.name == "probe-a.html"
    shot = capture_inspector(page, tmp_path / "inspector.png", browser=browser)
    board = capture_dashboard(dashboard, tmp_path / "dashboard.png", browser=browser)
    for png in (shot, board):
        with Image.open(png) as picture:
            assert picture.size == (1280, 800)
            pixels = np.asarray(picture.convert("L"), dtype=float)
            assert pixels.std() > 10  # a drawn page, not a blank one
