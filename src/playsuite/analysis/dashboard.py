"""The results dashboard: one static page per campaign that gathers what the analysis made.

A campaign here is one judge's scores table (what every table, figure and report of
``results/*/{judge}/`` is computed from). Its page shows the main table, every figure, the
reproduction report and a run browser: the scores table's episodes, filterable by corpus, preset,
condition, genre, level, status and game name, each linked to its inspection page
(:mod:`playsuite.analysis.inspector`). It is the analysis stage seen at a glance, in the spirit
of Inspect's log viewer, but a plain file: no server and no network at view time. Figures are
embedded as data URIs and the Markdown tables are rendered into the page, so the page alone
carries everything but the episodes, whose inspection pages (and their videos) it links by
relative paths inside the same results tree.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from markdown_it import MarkdownIt

from playsuite.analysis.inspector import (
    embed_json,
    episode_page_name,
    fill,
    html_escape,
    run_row,
    template,
)
from playsuite.files import write_text_atomic

#: Figure names (file stems) and how the page titles them; a prefix entry ends in ``_``.
FIGURE_TITLES = {
    "stability": "Leaderboard stability on random game subsets",
    "cost": "Cost against progress",
    "efficiency": "Efficiency: launch, concurrency and judge throughput",
    "tasks": "State-verified tasks: success rate and progress",
    "genre_heatmap_": "Mean progress by genre and model: {}",
    "ablation_": "Ablation: {}",
}


def figure_title(stem: str) -> str:
    """The heading a figure gets on the page, from its file stem (the stem when unknown)."""
    if stem in FIGURE_TITLES:
        return FIGURE_TITLES[stem]
    for prefix, title in FIGURE_TITLES.items():
        if prefix.endswith("_") and stem.startswith(prefix):
            return title.format(stem.removeprefix(prefix))
    return stem


def render_markdown(text: str) -> str:
    """Markdown tables and headings as HTML; raw HTML in the text is shown, never interpreted."""
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


@dataclass(frozen=True)
class Figure:
    """One figure of the page: its title, the PNG inlined, and the PDF beside it if any."""

    stem: str
    title: str
    png_data_uri: str
    pdf: str | None  # relative to the page

    def as_dict(self) -> dict[str, Any]:
        return {"stem": self.stem, "title": self.title, "src": self.png_data_uri, "pdf": self.pdf}


def load_figure(png: str | os.PathLike[str], page_dir: Path) -> Figure:
    """A PNG made by the analysis rules, ready for the page (a missing file is an error)."""
    png = Path(png)
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    pdf = png.with_suffix(".pdf")
    rel_pdf = os.path.relpath(pdf.resolve(), page_dir.resolve()) if pdf.is_file() else None
    return Figure(png.stem, figure_title(png.stem), f"data:image/png;base64,{data}", rel_pdf)


def run_browser_rows(
    scores: pd.DataFrame, inspect_dir: str | os.PathLike[str], page_dir: Path
) -> list[dict[str, Any]]:
    """One row per episode of the scores table; ``page`` is its inspection page relative to the
    dashboard, or None where the inspection site has none (an episode without a directory)."""
    inspect_dir = Path(inspect_dir)
    rows = []
    for row in scores.itertuples(index=False):
        target = inspect_dir / episode_page_name(row.corpus, row.preset, row.condition, row.game)
        page = os.path.relpath(target.resolve(), page_dir.resolve()) if target.is_file() else None
        rows.append(run_row(row, Path(page).as_posix() if page else None))
    return rows


def campaign_summary(scores: pd.DataFrame) -> dict[str, Any]:
    """The counts the page's header shows: episodes, how they ended, and their mean level."""
    ok = scores[scores["status"] == "ok"]
    levels = pd.to_numeric(ok["level"], errors="coerce").dropna()
    return {
        "episodes": len(scores),
        "statuses": {
            str(k): int(v) for k, v in scores["status"].value_counts().sort_index().items()
        },
        "corpora": sorted(map(str, scores["corpus"].unique())),
        "presets": sorted(map(str, scores["preset"].unique())),
        "conditions": sorted(map(str, scores["condition"].unique())),
        "games": int(scores[["corpus", "game"]].drop_duplicates().shape[0]),
        "mean_level": round(float(levels.mean()), 3) if len(levels) else None,
    }


def write_dashboard(
    judge: str,
    scores: pd.DataFrame,
    *,
    main_table: str | os.PathLike[str],
    report: str | os.PathLike[str],
    figures: Sequence[str | os.PathLike[str]],
    inspect_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
) -> Path:
    """Write the dashboard page of ``judge``'s campaign to ``out``.

    ``main_table`` and ``report`` are the Markdown the analysis rules wrote (main table,
    reproduction report); ``figures`` the PNGs to show, in order; ``inspect_dir`` the inspection
    site the run browser links into (rule ``inspection_pages``).
    """
    out = Path(out)
    page_dir = out.parent
    data = {
        "judge": judge,
        "summary": campaign_summary(scores),
        "figures": [load_figure(f, page_dir).as_dict() for f in figures],
        "runs": run_browser_rows(scores, inspect_dir, page_dir),
        "inspect_index": _relative_if_exists(Path(inspect_dir) / "index.html", page_dir),
    }
    html = fill(
        template("dashboard.html"),
        {
            "TITLE": html_escape(f"PlaySuite: {judge} judge"),
            "MAIN": render_markdown(Path(main_table).read_text("utf-8")),
            "REPORT": render_markdown(Path(report).read_text("utf-8")),
            "DATA": embed_json(data),
            "RUNBROWSER": template("run_browser.js"),
        },
    )
    write_text_atomic(out, html)
    return out


def _relative_if_exists(path: Path, page_dir: Path) -> str | None:
    if not path.is_file():
        return None
    return Path(os.path.relpath(path.resolve(), page_dir.resolve())).as_posix()
