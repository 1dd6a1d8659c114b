"""What the agent settings cost and change: interface, memory rounds, invalid answers.

GameWorld's Table 2 puts each memory setting's input tokens and step latency beside its progress,
and its main table sets each model's generalist (tool) interface against its computer-use one.
Both read the same per-episode numbers, gathered here once from the episodes themselves:

* :func:`episode_counts` reads each valid episode's ``meta.json`` (steps and invalid steps): the
  invalid-answer rate the main table shows per model and condition;
* :func:`episode_costs` reads each valid episode's trace as well: mean input (prompt) tokens and
  mean model latency per step, which every served step records (``info.usage``, ``latency_s``);
* :func:`memory_table`: per corpus, model and condition, with the condition's interface and memory
  rounds spelt out, the mean input tokens and seconds per step, the invalid rate, the mean judge
  level, and SR and PG on the state-verified tasks where the condition's episodes have any;
* :func:`interface_table`: per corpus, model and pair of conditions that differ only in
  ``agent.interface``, the text and tool interfaces side by side on the games both played, with
  the tool-minus-text difference of the mean level and a game-bootstrap interval.

Only valid episodes (scores ``status == ok``) count, the ones every other table counts. An
episode directory that is missing or unreadable counts in no mean (``unread`` says how many).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from playsuite.analysis.bootstrap import BootstrapSpec, ratio_bootstrap
from playsuite.analysis.scores import ordered_presets, valid
from playsuite.config import Condition
from playsuite.records.base import RecordError
from playsuite.records.episode import read_meta, read_trace

KEY = ["corpus", "preset", "condition", "game"]
COUNT_COLUMNS = (*KEY, "family", "level", "steps", "invalid_steps")
COST_COLUMNS = (*COUNT_COLUMNS, "input_tokens", "latency_s", "interface", "memory_rounds")


def _episode_dir(runs: str | os.PathLike[str], row: pd.Series | tuple) -> str:
    return os.path.join(runs, row.corpus, row.preset, row.condition, row.game)


def episode_counts(scores: pd.DataFrame, runs: str | os.PathLike[str]) -> pd.DataFrame:
    """Steps and invalid steps of each valid episode (from ``meta.json``); NaN when unreadable."""
    rows = []
    for ep in valid(scores).itertuples(index=False):
        steps = invalid = math.nan
        try:
            meta = read_meta(_episode_dir(runs, ep))
            steps, invalid = float(meta["steps"]), float(meta["invalid_steps"])
        except (OSError, RecordError, KeyError, ValueError):
            pass
        rows.append(
            {
                "corpus": ep.corpus,
                "preset": ep.preset,
                "condition": ep.condition,
                "game": ep.game,
                "family": ep.family,
                "level": float(ep.level),
                "steps": steps,
                "invalid_steps": invalid,
            }
        )
    return pd.DataFrame(rows, columns=list(COUNT_COLUMNS))


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else math.nan


def episode_costs(scores: pd.DataFrame, runs: str | os.PathLike[str]) -> pd.DataFrame:
    """:func:`episode_counts` plus each episode's mean input tokens and latency per step (from
    its trace; NaN where no step recorded them, as for the baselines' tokens) and its
    condition's interface and memory rounds."""
    counts = episode_counts(scores, runs)
    tokens, latency, interface, rounds = [], [], [], []
    for ep in counts.itertuples(index=False):
        cond = Condition.parse(ep.condition)
        interface.append(str(cond.setting("agent.interface")))
        rounds.append(int(cond.setting("agent.memory_rounds")))
        try:
            trace = read_trace(_episode_dir(runs, ep))
        except (OSError, RecordError):
            trace = []
        used = [
            float(s["info"]["usage"]["prompt_tokens"])
            for s in trace
            if isinstance(s.get("info", {}).get("usage", {}).get("prompt_tokens"), int | float)
        ]
        tokens.append(_mean(used))
        latency.append(
            _mean([float(s["latency_s"]) for s in trace if s.get("latency_s") is not None])
        )
    return counts.assign(
        input_tokens=tokens, latency_s=latency, interface=interface, memory_rounds=rounds
    )[list(COST_COLUMNS)]


def invalid_rate(counts: pd.DataFrame) -> pd.Series:
    """Invalid steps over steps (%) per (corpus, preset, condition), pooled over episodes."""
    read = counts[counts["steps"].notna() & (counts["steps"] > 0)]
    sums = read.groupby(["corpus", "preset", "condition"])[["invalid_steps", "steps"]].sum()
    return 100.0 * sums["invalid_steps"] / sums["steps"]


def _task_stats(task_runs: pd.DataFrame | None) -> pd.DataFrame:
    """SR and PG (%) per (corpus, preset, condition) over measured task runs."""
    cols = ["corpus", "preset", "condition"]
    if task_runs is None or task_runs.empty:
        return pd.DataFrame(columns=[*cols, "task runs", "SR (%)", "PG (%)"]).set_index(cols)
    measured = task_runs[task_runs["progress"].notna()]
    grouped = measured.groupby(cols)
    return pd.DataFrame(
        {
            "task runs": grouped.size(),
            "SR (%)": 100.0 * grouped["success"].mean(),
            "PG (%)": 100.0 * grouped["progress"].mean(),
        }
    )


MEMORY_COLUMNS = (
    "corpus",
    "preset",
    "interface",
    "memory rounds",
    "condition",
    "episodes",
    "unread",
    "input tokens/step",
    "latency s/step",
    "invalid (%)",
    "mean level",
    "task runs",
    "SR (%)",
    "PG (%)",
)


def memory_table(costs: pd.DataFrame, task_runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (corpus, model, condition): interface, memory rounds, cost and outcome."""
    if costs.empty:
        return pd.DataFrame(columns=list(MEMORY_COLUMNS))
    tasks = _task_stats(task_runs)
    rates = invalid_rate(costs)
    rows = []
    order = {p: i for i, p in enumerate(ordered_presets(costs))}
    for (corpus, preset, condition), part in costs.groupby(["corpus", "preset", "condition"]):
        key = (corpus, preset, condition)
        read = part[part["steps"].notna()]
        row = {
            "corpus": corpus,
            "preset": preset,
            "interface": part["interface"].iloc[0],
            "memory rounds": int(part["memory_rounds"].iloc[0]),
            "condition": condition,
            "episodes": len(part),
            "unread": len(part) - len(read),
            "input tokens/step": read["input_tokens"].mean(),
            "latency s/step": read["latency_s"].mean(),
            "invalid (%)": rates.get(key, math.nan),
            "mean level": part["level"].mean(),
            "task runs": int(tasks["task runs"].get(key, 0)),
            "SR (%)": tasks["SR (%)"].get(key, math.nan),
            "PG (%)": tasks["PG (%)"].get(key, math.nan),
        }
        rows.append(row)
    table = pd.DataFrame(rows, columns=list(MEMORY_COLUMNS))
    table["_order"] = table["preset"].map(order)
    table = table.sort_values(
        ["corpus", "_order", "interface", "memory rounds", "condition"], kind="stable"
    )
    return table.drop(columns="_order").reset_index(drop=True)


def paired_condition(condition: str) -> str:
    """The condition with its interface setting removed: what a text and a tool run share."""
    return Condition.parse(condition).with_setting("agent.interface", None).name


INTERFACE_COLUMNS = (
    "corpus",
    "preset",
    "condition",
    "games",
    "text level",
    "tools level",
    "tools - text",
    "tools - text low",
    "tools - text high",
    "text invalid (%)",
    "tools invalid (%)",
    "text PG (%)",
    "tools PG (%)",
)


def interface_table(
    costs: pd.DataFrame, task_runs: pd.DataFrame | None, spec: BootstrapSpec
) -> pd.DataFrame:
    """Text against tools, per corpus, model and shared condition, on the games both played.

    ``condition`` is the shared condition without its interface setting. The level difference's
    interval resamples the matched games; the invalid rates and PG are over the same games.
    """
    if costs.empty:
        return pd.DataFrame(columns=list(INTERFACE_COLUMNS))
    data = costs.assign(pair=costs["condition"].map(paired_condition))
    tasks = task_runs if task_runs is not None else pd.DataFrame(columns=[*KEY, "progress"])
    rows = []
    order = {p: i for i, p in enumerate(ordered_presets(costs))}
    for (corpus, preset, pair), part in data.groupby(["corpus", "preset", "pair"]):
        sides = {i: part[part["interface"] == i].set_index("game") for i in ("text", "tools")}
        if sides["text"].empty or sides["tools"].empty:
            continue
        games = sorted(set(sides["text"].index) & set(sides["tools"].index))
        if not games:
            continue
        diff = (sides["tools"].loc[games, "level"] - sides["text"].loc[games, "level"]).to_numpy()
        est = ratio_bootstrap(diff[:, None], np.ones((len(games), 1)), spec)
        row = {"corpus": corpus, "preset": preset, "condition": pair, "games": len(games)}
        for name, side in sides.items():
            matched = side.loc[games]
            steps = matched["steps"].sum()
            row[f"{name} level"] = matched["level"].mean()
            row[f"{name} invalid (%)"] = (
                100.0 * matched["invalid_steps"].sum() / steps if steps > 0 else math.nan
            )
            cond = matched["condition"].iloc[0]
            runs = tasks[
                (tasks["corpus"] == corpus)
                & (tasks["preset"] == preset)
                & (tasks["condition"] == cond)
                & tasks["game"].isin(games)
                & tasks["progress"].notna()
            ]
            row[f"{name} PG (%)"] = 100.0 * runs["progress"].mean() if len(runs) else math.nan
        row["tools - text"] = float(est.point[0])
        row["tools - text low"] = float(est.low[0])
        row["tools - text high"] = float(est.high[0])
        rows.append(row)
    table = pd.DataFrame(rows, columns=list(INTERFACE_COLUMNS))
    table["_order"] = table["preset"].map(order)
    table = table.sort_values(["corpus", "_order", "condition"], kind="stable")
    return table.drop(columns="_order").reset_index(drop=True)
