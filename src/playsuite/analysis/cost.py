"""Cost against performance (paper Figure 16), and the judges' cost apart from it.

GPU-hours are measured, not estimated: each play job attempt writes a cost record (one TSV row:
wall time and GPUs per replica, whatever its outcome) when it starts and completes it when it
ends. A preset's cost per 1,000 scored games is all its recorded GPU time in the campaign the
figure covers, failed, killed and retried attempts included, divided by its valid evaluations in
that campaign. The paper's campaign is the no-history itch.io one (``analysis.cost``); scoring
games of one campaign with the GPU time of all would understate the cost. Judge jobs write the
same records (with a ``judge`` column) to their own folder, and :func:`judge_cost_table` reports
them separately: the paper excludes judging from the figure. Format: playsuite.records.costs
and docs/analysis.md "Cost records".
"""

from __future__ import annotations

import os
from collections.abc import Collection

import numpy as np
import pandas as pd

from playsuite.analysis.scores import FAMILY_ORDER, valid
from playsuite.cluster.accounting import resolve_costs
from playsuite.records.costs import RUNNING, read_cost_folder
from playsuite.registry import Registry

#: Status the analysis gives a record its job never completed.
KILLED = "killed"


def read_cost_records(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """All cost records under ``directory`` (recursively), checked (playsuite.records.costs);
    empty if there are none. Slurm jobs: wall time and GPUs as the cluster accounted them, where
    sacct knows the job; records whose job never completed are ``killed``."""
    costs = read_cost_folder(directory)
    return costs if costs.empty else mark_killed(resolve_costs(costs))


def mark_killed(costs: pd.DataFrame) -> pd.DataFrame:
    """Records still saying ``running`` become ``killed``.

    The cost rule runs after every play job has ended, so a record that never got its final
    status belongs to an attempt killed without warning (``kill -9``, the out-of-memory killer, a
    lost node). Its wall time is its last heartbeat, or what sacct accounted; it is counted.
    """
    out = costs.copy()
    out.loc[out["status"].astype(str) == RUNNING, "status"] = KILLED
    return out


def in_campaign(df: pd.DataFrame, condition: str, corpus: str | None) -> pd.DataFrame:
    """The rows of one campaign: ``condition``, and ``corpus`` unless None (all corpora)."""
    keep = df["condition"].astype(str) == condition
    if corpus is not None:
        keep &= df["corpus"].astype(str) == corpus
    return df[keep]


def cost_table(
    scores: pd.DataFrame,
    costs: pd.DataFrame,
    condition: str,
    registry: Registry | None,
    exclude: Collection[str] = (),
    corpus: str | None = None,
) -> pd.DataFrame:
    """Per preset, in the campaign ``condition`` x ``corpus`` (None: all corpora): GPU-hours of
    all its jobs, jobs, scored games, GPU-h per 1k scored games, mean progress.

    ``exclude``: presets whose cost records are left out (the engine checks' random-weight
    models: their play jobs write records beside the paper's, but they are no evaluated model).
    """
    costs = in_campaign(costs[~costs["preset"].isin(list(exclude))], condition, corpus)
    ok = in_campaign(valid(scores), condition, corpus)
    rows = []
    fam = scores.drop_duplicates("preset").set_index("preset")["family"]
    for preset in sorted(set(scores["preset"]) | set(costs["preset"])):
        jobs = costs[costs["preset"] == preset]
        gpu_h = float((jobs["wall_s"] * jobs["gpus"]).sum() / 3600.0)
        needs_gpu = (
            registry is None or preset not in registry.presets or registry.presets[preset].gpus > 0
        )
        if jobs.empty and needs_gpu:
            gpu_h = np.nan  # unknown: no job of this preset was recorded
        scored = int((ok["preset"] == preset).sum())
        at = ok[ok["preset"] == preset]["level"]
        params = None
        if registry is not None and preset in registry.presets:
            params = registry.presets[preset].params_b
        rows.append(
            {
                "preset": preset,
                "family": fam.get(
                    preset,
                    registry.presets[preset].family
                    if registry and preset in registry.presets
                    else "",
                ),
                "params_b": params,
                "jobs": len(jobs),
                "failed_jobs": int((jobs["status"] != "ok").sum()),
                "killed_jobs": int((jobs["status"] == KILLED).sum()),
                "gpu_hours": gpu_h,
                "scored_games": scored,
                "gpu_hours_per_1k": gpu_h / scored * 1000.0 if scored else np.nan,
                "mean_progress": float(at.mean()) if len(at) else np.nan,
            }
        )
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    rank = {f: i for i, f in enumerate(FAMILY_ORDER)}
    out["_o"] = out["family"].map(lambda f: rank.get(f, len(rank)))
    return out.sort_values(["_o", "preset"]).drop(columns="_o").reset_index(drop=True)


#: The judge cost table's columns; the report shows all but the last (per 1,000 videos).
JUDGE_COST_COLUMNS = (
    "judge",
    "jobs",
    "failed_jobs",
    "killed_jobs",
    "gpu_hours",
    "judged_videos",
    "videos_per_gpu_hour",
    "gpu_hours_per_1k_videos",
)
JUDGE_COST_SHOWN = JUDGE_COST_COLUMNS[:-1]


def judge_cost_table(costs: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Per judge: its jobs' GPU-hours (failed and killed attempts included), the episodes it
    judged (rows of its scores with a level), videos per GPU-hour and GPU-hours per 1,000.

    ``costs`` are judge cost records (a ``judge`` column beside the play columns); ``scores``
    the judge's scores table.
    """
    if "judge" not in costs:
        costs = costs.assign(judge=pd.Series(dtype=str))
    judged = scores[scores["level"].notna()]
    rows = []
    for judge in sorted(set(costs["judge"].astype(str)) | set(judged["judge"].astype(str))):
        jobs = costs[costs["judge"].astype(str) == judge]
        gpu_h = float((jobs["wall_s"] * jobs["gpus"]).sum() / 3600.0) if len(jobs) else np.nan
        videos = int((judged["judge"].astype(str) == judge).sum())
        rows.append(
            {
                "judge": judge,
                "jobs": len(jobs),
                "failed_jobs": int((jobs["status"] != "ok").sum()),
                "killed_jobs": int((jobs["status"] == KILLED).sum()),
                "gpu_hours": gpu_h,
                "judged_videos": videos,
                "videos_per_gpu_hour": videos / gpu_h if gpu_h else np.nan,
                "gpu_hours_per_1k_videos": gpu_h / videos * 1000.0 if videos else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=list(JUDGE_COST_COLUMNS))
