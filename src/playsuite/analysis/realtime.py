"""Latency against progress: what the real-time protocol (GameWorld-RT) costs each model.

Under the real-time protocol (playsuite.harness.protocol) the game runs on while the model
thinks, so a slow model acts on an old screen and loses game time it could have played. This
table sets each model's latency beside its state-verified progress (playsuite.analysis.tasks):
per corpus, real-time condition and model, the episodes' mean thinking time per step (wall
seconds), the game time it was played as, the share of the episodes' game time spent thinking,
and SR and PG with their game-bootstrap bounds (the SR/PG table's rows for that model). Where
the run also played the same condition paused (its name without ``+play.realtime=true``), the
paused PG and the difference are beside it: the progress latency cost.

A condition counts as real time when its episodes' ``meta.json`` says so (``protocol``), so a
run whose ``play.realtime`` is set for every condition is read right too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np
import pandas as pd

from playsuite.config import Condition
from playsuite.records.episode import EpisodeError, read_meta, read_trace

EPISODE_COLUMNS = (
    "corpus",
    "preset",
    "condition",
    "game",
    "realtime",
    "steps",
    "think_s",
    "think_game_s",
    "t_game",
)
COLUMNS = (
    "corpus",
    "condition",
    "model",
    "episodes",
    "steps",
    "latency s/step",
    "thinking game s/step",
    "thinking share (%)",
    "PG (%)",
    "PG (%) low",
    "PG (%) high",
    "SR (%)",
    "SR (%) low",
    "SR (%) high",
    "paused condition",
    "PG paused (%)",
    "PG change (pp)",
)


def episode_latencies(
    episodes: Iterable[tuple[str, str, str, str]], runs: str | os.PathLike[str]
) -> pd.DataFrame:
    """One row per episode (corpus, preset, condition, game) found under ``runs``: whether it
    was played in real time, its steps, and its mean thinking time per step (wall seconds; the
    policy's reported latency in paused episodes, which record no thinking time) with the mean
    game time that was played as. Episodes without a directory are left out."""
    rows = []
    for corpus, preset, condition, game in episodes:
        path = os.path.join(runs, corpus, preset, condition, game)
        try:
            meta, trace = read_meta(path), read_trace(path)
        except EpisodeError:
            continue
        protocol = meta.get("protocol") or {}
        think = [float(r.get("think_s", r.get("latency_s", 0.0))) for r in trace]
        played = [float(r.get("think_game_s", 0.0)) for r in trace]
        rows.append(
            {
                "corpus": corpus,
                "preset": preset,
                "condition": condition,
                "game": game,
                "realtime": bool(protocol.get("realtime", False)),
                "steps": len(trace),
                "think_s": float(np.mean(think)) if think else np.nan,
                "think_game_s": float(np.mean(played)) if played else 0.0,
                "t_game": float(meta.get("t_game", 0.0)),
            }
        )
    return pd.DataFrame(rows, columns=list(EPISODE_COLUMNS))


def paused_counterpart(condition: str) -> str:
    """The same condition without its real-time setting (the paused protocol)."""
    return Condition.parse(condition).with_setting("play.realtime", None).name


def realtime_table(latencies: pd.DataFrame, sr_pg: pd.DataFrame) -> pd.DataFrame:
    """Rows (corpus, real-time condition, model): latency, thinking share, SR and PG, and the
    paused condition's PG where it was played. ``sr_pg`` is the SR/PG table
    (playsuite.analysis.tasks.sr_pg_table)."""
    rt = latencies[latencies["realtime"]]
    if rt.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    models = sr_pg[sr_pg["scope"] == "model"].set_index(["corpus", "condition", "group"])
    rows = []
    for (corpus, condition, preset), part in rt.groupby(["corpus", "condition", "preset"]):
        steps = int(part["steps"].sum())
        weights = part["steps"].to_numpy(float)
        played = float((part["think_game_s"] * part["steps"]).sum())
        game_time = float(part["t_game"].sum())
        row: dict[str, object] = {
            "corpus": corpus,
            "condition": condition,
            "model": preset,
            "episodes": len(part),
            "steps": steps,
            "latency s/step": _weighted(part["think_s"].to_numpy(float), weights),
            "thinking game s/step": played / steps if steps else np.nan,
            "thinking share (%)": 100.0 * played / game_time if game_time else np.nan,
        }
        for stat in ("PG (%)", "SR (%)"):
            for suffix in ("", " low", " high"):
                key = (corpus, condition, preset)
                row[stat + suffix] = models[stat + suffix].get(key, np.nan)
        paused = paused_counterpart(condition)
        pg_paused = models["PG (%)"].get((corpus, paused, preset), np.nan)
        row["paused condition"] = paused if not pd.isna(pg_paused) else ""
        row["PG paused (%)"] = pg_paused
        row["PG change (pp)"] = row["PG (%)"] - pg_paused  # type: ignore[operator]
        rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _weighted(values: np.ndarray, weights: np.ndarray) -> float:
    keep = ~np.isnan(values) & (weights > 0)
    if not keep.any():
        return float("nan")
    return float(np.average(values[keep], weights=weights[keep]))
