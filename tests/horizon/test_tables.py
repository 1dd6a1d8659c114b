"""Accuracy with game-level CIs, and the offline-online Spearman correlation."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.horizon.tables import accuracy_table, correlation_table, spearman, write_table


def _answers(preset: str, marks: dict[tuple[str, str], list[bool]]) -> dict:
    answers = []
    for (game, task), results in marks.items():
        for i, ok in enumerate(results):
            answers.append(
                {
                    "id": f"{task}:{game}:{i}",
                    "task": task,
                    "game": game,
                    "choice": 0,
                    "correct": ok,
                    "status": "ok",
                    "error": None,
                }
            )
    return {"preset": preset, "answers": answers}


def test_accuracy_per_task_and_overall() -> None:
    doc = _answers(
        "m",
        {
            ("g1", "T1"): [True, True, False, False],
            ("g2", "T1"): [True, True],
            ("g1", "T3"): [True],
            ("g2", "T3"): [False],
        },
    )
    doc["answers"][-1].update(status="failed", choice=None)
    table = accuracy_table([doc], BootstrapSpec(resamples=500, seed=1)).set_index("task")
    assert list(table.index) == ["T1", "T3", "all"]
    assert table.loc["T1", "accuracy"] == pytest.approx(4 / 6)
    assert table.loc["T3", "accuracy"] == pytest.approx(0.5)
    assert table.loc["all", "accuracy"] == pytest.approx(5 / 8)
    assert table.loc["all", "failed"] == 1 and table.loc["T1", "failed"] == 0
    for _, row in table.iterrows():
        assert row["ci_low"] <= row["accuracy"] <= row["ci_high"]
    # resampling games: T3 is all right in g1 and all wrong in g2
    assert table.loc["T3", "ci_low"] == 0.0 and table.loc["T3", "ci_high"] == 1.0


def test_spearman() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    assert math.isnan(spearman([1, 2], [1, 2]))
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


def test_correlation_table(tmp_path) -> None:
    accuracy = pd.DataFrame(
        {"preset": ["a", "b", "c", "d"], "task": "all", "accuracy": [0.9, 0.5, 0.7, 0.3]}
    )
    scores = pd.DataFrame(
        {
            "preset": ["a", "a", "b", "c", "c", "x"],
            "level": [4, 2, 1, 2, 2, 4],
            "status": ["ok", "ok", "ok", "ok", "failed", "ok"],
        }
    )
    table = correlation_table(accuracy, scores).set_index("preset")
    assert list(table.index) == ["a", "b", "c"]  # d has no online runs, x no offline answers
    assert table.loc["a", "online_progress"] == 3.0 and table.loc["c", "episodes"] == 1
    assert table.loc["a", "offline_rank"] == 1 and table.loc["b", "online_rank"] == 3
    assert table["spearman_rho"].iloc[0] == pytest.approx(1.0)
    write_table(table.reset_index(), tmp_path / "t.tsv")
    write_table(table.reset_index(), tmp_path / "t.md")
    assert pd.read_csv(tmp_path / "t.tsv", sep="\t").shape == (3, 8)
    assert (tmp_path / "t.md").read_text().startswith("| preset |")
