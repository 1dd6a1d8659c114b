"""Offline accuracy per preset and task with game-level bootstrap CIs, and the offline-online
correlation (GameHorizon's Table 15 asks whether offline ranks predict online play).

Questions of one game are not independent (they share its annotations and distractor pools), so
the intervals resample games, with the project's bootstrap (:mod:`playsuite.analysis.bootstrap`):
the accuracy of a column is a ratio of sums over games (right answers / questions), and every
task and the overall column share the same resamples. A failed answer counts as wrong.

The correlation is Spearman's rank correlation between each preset's overall offline accuracy
and its online progress, the mean progress level of its ok episodes in a judge's scores table.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from playsuite.analysis.bootstrap import BootstrapSpec, ratio_bootstrap
from playsuite.records.horizon import TASKS

ALL = "all"
ACCURACY_COLUMNS = ("preset", "task", "questions", "failed", "accuracy", "ci_low", "ci_high")
CORRELATION_COLUMNS = (
    "preset",
    "offline_accuracy",
    "online_progress",
    "episodes",
    "offline_rank",
    "online_rank",
    "spearman_rho",
    "models",
)


def accuracy_table(answer_sets: Iterable[Mapping[str, Any]], spec: BootstrapSpec) -> pd.DataFrame:
    """One row per preset and task (tasks with questions, then ``all``)."""
    rows = []
    for doc in answer_sets:
        answers = doc["answers"]
        games = sorted({a["game"] for a in answers})
        tasks = [t for t in TASKS if any(a["task"] == t for a in answers)]
        columns = [*tasks, ALL]
        num = np.zeros((len(games), len(columns)))
        den = np.zeros_like(num)
        failed = dict.fromkeys(columns, 0)
        index = {g: i for i, g in enumerate(games)}
        for a in answers:
            for col in (a["task"], ALL):
                j = columns.index(col)
                num[index[a["game"]], j] += bool(a["correct"])
                den[index[a["game"]], j] += 1
                failed[col] += a["status"] != "ok"
        est = ratio_bootstrap(num, den, spec)
        for j, col in enumerate(columns):
            rows.append(
                {
                    "preset": doc["preset"],
                    "task": col,
                    "questions": int(den[:, j].sum()),
                    "failed": int(failed[col]),
                    "accuracy": float(est.point[j]),
                    "ci_low": float(est.low[j]),
                    "ci_high": float(est.high[j]),
                }
            )
    return pd.DataFrame(rows, columns=list(ACCURACY_COLUMNS))


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho (average ranks for ties); NaN with fewer than 3 pairs or a constant side."""
    if len(x) != len(y):
        raise ValueError("spearman: sequences of different length")
    if len(x) < 3:
        return float("nan")
    rx = pd.Series(list(x), dtype=float).rank(method="average").to_numpy()
    ry = pd.Series(list(y), dtype=float).rank(method="average").to_numpy()
    if np.std(rx) == 0 or np.std(ry) == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def correlation_table(accuracy: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Per preset: overall offline accuracy, online progress (mean level of its ok episodes in
    ``scores``), both ranks (1 = best), and Spearman's rho over the presets having both."""
    overall = accuracy[accuracy["task"] == ALL].set_index("preset")["accuracy"]
    ok = scores[scores["status"] == "ok"]
    progress = ok.groupby("preset")["level"].mean()
    episodes = ok.groupby("preset")["level"].size()
    presets = [p for p in overall.index if p in progress.index]
    frame = pd.DataFrame(
        {
            "preset": presets,
            "offline_accuracy": [float(overall[p]) for p in presets],
            "online_progress": [float(progress[p]) for p in presets],
            "episodes": [int(episodes[p]) for p in presets],
        }
    )
    frame["offline_rank"] = frame["offline_accuracy"].rank(ascending=False, method="min")
    frame["online_rank"] = frame["online_progress"].rank(ascending=False, method="min")
    frame["spearman_rho"] = spearman(frame["offline_accuracy"], frame["online_progress"])
    frame["models"] = len(frame)
    return frame.loc[:, list(CORRELATION_COLUMNS)]


def write_table(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """TSV (``.tsv``) or Markdown (``.md``), atomically."""
    from playsuite.analysis.tables import to_markdown
    from playsuite.files import write_text_atomic

    path = os.fspath(path)
    if path.endswith(".md"):
        write_text_atomic(path, to_markdown(frame, digits=3))
    else:
        write_text_atomic(path, frame.to_csv(sep="\t", index=False, float_format="%.6g"))
