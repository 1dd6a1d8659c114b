"""Ablation figures keep their whole title inside the figure, also one corpus (one column) wide."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from playsuite.analysis import figures
from playsuite.analysis.history import ALL_MODELS

#: As analysis_ablation.py builds it when conditions were never run.
TITLE = (
    "History length (not run: k5-hz0.33-base, k10-hz0.33-base, k20-hz0.33-base, k40-hz0.33-base)"
)


def history() -> plt.Figure:
    rows = [
        {
            "corpus": "local",
            "model": model,
            "history_k": k,
            "mean": m,
            "low": m - 0.1,
            "high": m + 0.1,
            "games": 12,
        }
        for model in ("a", "b", ALL_MODELS)
        for k, m in ((0, 0.8), (3, 0.6))
    ]
    return figures.history_figure(pd.DataFrame(rows), TITLE)


def rate() -> plt.Figure:
    summary = pd.DataFrame(
        [
            {
                "corpus": "local",
                "hz": hz,
                "reference": ref,
                "without": 0.7,
                "without low": 0.6,
                "without high": 0.8,
                "with": 0.6,
                "with low": 0.5,
                "with high": 0.7,
                "change": 0.1,
                "change low": 0.0,
                "change high": 0.2,
                "pearson r": 0.5,
                "pearson r low": 0.1,
                "pearson r high": 0.8,
            }
            for hz, ref in ((0.33, True), (3.0, False))
        ]
    )
    per_model = pd.DataFrame(
        [
            {"corpus": "local", "model": m, "hz": hz, "gap": g}
            for m, g in (("a", 0.1), ("b", -0.2), ("c", 0.3))
            for hz in (0.33, 3.0)
        ]
    )
    return figures.rate_figure(summary, per_model, TITLE.replace("History length", "Action rate"))


def prompting() -> plt.Figure:
    effects = pd.DataFrame(
        [
            {
                "corpus": "local",
                "model": m,
                "variant": v,
                "delta": 0.1,
                "low": -0.1,
                "high": 0.3,
                "reference": "k3-hz0.33-base",
            }
            for m in ("a", "b")
            for v in ("strategy", "fewshot")
        ]
    )
    return figures.prompting_figure(effects, TITLE.replace("History length", "Prompting"))


@pytest.mark.parametrize("make", [history, rate, prompting])
def test_title_lies_inside_the_figure(make, tmp_path: Path) -> None:
    fig = make()
    title = fig._suptitle
    figures.save_figure(fig, tmp_path / "f.pdf", tmp_path / "f.png")  # lays out, then closes
    canvas = FigureCanvasAgg(fig)  # closing detached the figure from its canvas
    canvas.draw()
    renderer = canvas.get_renderer()
    box = title.get_window_extent(renderer)
    page = fig.bbox
    assert " ".join(title.get_text().split()) == " ".join(make_title(make).split())
    assert page.x0 <= box.x0 and box.x1 <= page.x1, (box, page)
    assert page.y0 <= box.y0 and box.y1 <= page.y1, (box, page)
    # the panels stay below the title
    for ax in fig.axes:
        assert ax.get_tightbbox(renderer).y1 <= box.y0 + 1


def make_title(make) -> str:
    return {
        history: TITLE,
        rate: TITLE.replace("History length", "Action rate"),
        prompting: TITLE.replace("History length", "Prompting"),
    }[make]
