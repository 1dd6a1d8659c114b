"""Success rate (SR) and progress (PG) on state-verified tasks, GameWorld's two metrics.

Each valid episode of the scores table (``status == ok``) whose game declares tasks gives one
*task run* per task (playsuite.judge.tasks: progress in [0, 1] and success). SR is the share of
measured task runs that reached their target, PG their mean progress, both in percent, reported
per model (preset), per genre (every model pooled) and per corpus (everything pooled), for each
corpus and condition. Intervals resample games, so a game's tasks and models travel together, and
SR and PG come from the same resamples. Task runs without any recorded value of their probes
(unmeasured: the episode's trace holds no such probe, or its directory is missing) enter no mean
and are counted in ``unmeasured``.

A GameWorld task run (a condition with ``task.index=N``, whose prompt gave the model the row's
N-th task) counts for that task alone; a game without an N-th task gives no task run there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from playsuite.analysis.bootstrap import BootstrapSpec, ratio_bootstrap, stack
from playsuite.analysis.figures import STYLE, _empty, _panels
from playsuite.analysis.scores import ordered_presets, valid
from playsuite.config import Condition
from playsuite.judge.episode import EpisodeError, load_episode
from playsuite.judge.tasks import Task, episode_outcomes

RUN_COLUMNS = (
    "corpus",
    "preset",
    "family",
    "condition",
    "game",
    "genre",
    "task",
    "progress",
    "success",
    "baseline",
    "best",
    "observed",
)
SCOPES = ("model", "genre", "corpus")
STAT_COLUMNS = ("SR (%)", "PG (%)")


def task_runs(
    scores: pd.DataFrame, runs: str | os.PathLike[str], tasks: Mapping[str, Sequence[Task]]
) -> pd.DataFrame:
    """One row per (valid episode, task of its game); ``tasks`` maps ``corpus/game`` to tasks.

    Progress and success are NaN when unmeasured (a missing episode directory counts so too).
    """
    rows = []
    for ep in valid(scores).itertuples(index=False):
        game_tasks = list(tasks.get(f"{ep.corpus}/{ep.game}", ()))
        index = Condition.parse(ep.condition).get("task.index")
        if index is not None:  # a task run: the task its prompt named, and no other
            game_tasks = game_tasks[index : index + 1]
        if not game_tasks:
            continue
        path = os.path.join(runs, ep.corpus, ep.preset, ep.condition, ep.game)
        try:
            outcomes = episode_outcomes(load_episode(path), game_tasks)
        except EpisodeError:
            outcomes = None
        for i, task in enumerate(game_tasks):
            out = outcomes[i] if outcomes else None
            measured = out is not None and out.measured
            rows.append(
                {
                    "corpus": ep.corpus,
                    "preset": ep.preset,
                    "family": ep.family,
                    "condition": ep.condition,
                    "game": ep.game,
                    "genre": ep.genre,
                    "task": task.name,
                    "progress": out.progress if measured else np.nan,
                    "success": float(out.success) if measured else np.nan,
                    "baseline": out.baseline if out and out.baseline is not None else np.nan,
                    "best": out.best if out and out.best is not None else np.nan,
                    "observed": out.observed if out else 0,
                }
            )
    return pd.DataFrame(rows, columns=list(RUN_COLUMNS))


def _sums(
    sub: pd.DataFrame, games: list[str], key: str, groups: list[str], stat: str
) -> tuple[np.ndarray, np.ndarray]:
    """(num, den): games x groups sums of ``stat`` over measured task runs, and their counts."""
    measured = sub[sub[stat].notna()]
    num = measured.pivot_table(index="game", columns=key, values=stat, aggfunc="sum")
    den = measured.pivot_table(index="game", columns=key, values=stat, aggfunc="count")
    shape = {"index": games, "columns": groups, "fill_value": 0.0}
    num, den = (t.reindex(**shape).fillna(0.0).to_numpy(float) for t in (num, den))
    return num, den


def sr_pg_table(runs: pd.DataFrame, spec: BootstrapSpec) -> pd.DataFrame:
    """Rows (corpus, condition, scope, group): N games and task runs, unmeasured, SR and PG (%)
    with game-bootstrap bounds."""
    rows = []
    data = runs.assign(everything="all")
    for (corpus, condition), sub in data.groupby(["corpus", "condition"], sort=True):
        games = sorted(sub["game"].unique())
        keyed = [
            ("model", "preset", ordered_presets(sub)),
            ("genre", "genre", sorted(sub["genre"].unique())),
            ("corpus", "everything", ["all"]),
        ]
        pairs, labels = [], []
        for stat in ("success", "progress"):
            for scope, key, groups in keyed:
                pairs.append(_sums(sub, games, key, groups, stat))
                labels += [(stat, scope, key, g) for g in groups]
        est = ratio_bootstrap(*stack(*pairs), spec)
        half = len(labels) // 2
        for i in range(half):
            _, scope, key, group = labels[i]
            part = sub[sub[key] == group]
            measured = part[part["progress"].notna()]
            row = {
                "corpus": corpus,
                "condition": condition,
                "scope": scope,
                "group": group,
                "games": int(measured["game"].nunique()),
                "task runs": len(measured),
                "unmeasured": len(part) - len(measured),
            }
            for name, j in zip(STAT_COLUMNS, (i, i + half), strict=True):
                row[name] = 100.0 * est.point[j]
                row[f"{name} low"] = 100.0 * est.low[j]
                row[f"{name} high"] = 100.0 * est.high[j]
            rows.append(row)
    columns = ["corpus", "condition", "scope", "group", "games", "task runs", "unmeasured"]
    columns += [f"{s}{b}" for s in STAT_COLUMNS for b in ("", " low", " high")]
    return pd.DataFrame(rows, columns=columns)


def tasks_figure(table: pd.DataFrame) -> plt.Figure:
    """SR and PG per model and condition with their intervals; one panel per corpus."""
    models = table[table["scope"] == "model"] if not table.empty else table
    corpora = sorted(models["corpus"].unique()) if not models.empty else []
    rows = max((int((models["corpus"] == c).sum()) for c in corpora), default=1)
    fig, axes = _panels(len(corpora), height=0.9 + 0.28 * rows)
    if not corpora:
        _empty(axes[0], "no measured task runs")
        return fig
    with plt.rc_context(STYLE):
        for ax, corpus in zip(axes, corpora, strict=False):
            part = models[models["corpus"] == corpus]
            y = np.arange(len(part))
            for offset, stat, color in ((-0.2, "SR (%)", "#4c72b0"), (0.2, "PG (%)", "#dd8452")):
                point = part[stat].to_numpy(float)
                low = point - part[f"{stat} low"].to_numpy(float)
                high = part[f"{stat} high"].to_numpy(float) - point
                ax.barh(y + offset, point, height=0.38, color=color, label=stat.split()[0])
                ax.errorbar(
                    point,
                    y + offset,
                    xerr=np.abs(np.vstack([low, high])),
                    fmt="none",
                    ecolor="#333333",
                    lw=0.6,
                )
            labels = part["group"] + " · " + part["condition"]
            ax.set_yticks(y, labels.tolist())
            ax.invert_yaxis()
            ax.set_xlim(0, 100)
            ax.set_xlabel("% (SR: targets reached; PG: mean progress)")
            ax.set_title(corpus)
        axes[0].legend(loc="lower right", frameon=False)
    return fig
