"""A human row in the main table: people's scores are rows like a preset's, listed last."""

from __future__ import annotations

import pandas as pd
import pytest

from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.main_results import main_results

WITH, WITHOUT = "k3-hz0.33-base", "k0-hz0.33-base"


@pytest.mark.filterwarnings("ignore:All-NaN slice")  # no k=3 column for people
def test_people_get_a_row_after_the_models_and_baselines() -> None:
    rows = []
    for preset, family, level in (
        ("human", "human", 3),
        ("random", "baseline", 0),
        ("m", "VLM", 1),
    ):
        for game in ("g1", "g2"):
            for condition in (WITH, WITHOUT):
                if preset == "human" and condition == WITH:
                    continue  # people play the paced default only
                rows.append(
                    {"corpus": "local", "preset": preset, "family": family,
                     "condition": condition, "game": game, "level": level, "status": "ok"}
                )  # fmt: skip
    table = main_results(pd.DataFrame(rows), WITH, WITHOUT, BootstrapSpec(resamples=50, seed=0))
    assert list(table["preset"]) == ["m", "random", "human"]
    human = table.set_index("preset").loc["human"]
    assert human["local k=0"] == 3.0 and human["local Partial+ k=0 (%)"] == 100.0
    assert pd.isna(human["local k=3"])
