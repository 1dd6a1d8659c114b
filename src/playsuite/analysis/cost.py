"""Cost against performance (paper Figure 16).

GPU-hours are measured, not estimated: each play job attempt writes a cost record (one TSV row:
wall time and GPUs per replica, whatever its outcome) when it starts and completes it when it
ends. A preset's cost per 1,000 scored games is all its recorded GPU time, failed, killed and
retried attempts included, divided by its valid evaluations. Format: docs/analysis.md "Cost
records".
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

import numpy as np
import pandas as pd

from playsuite.analysis.scores import FAMILY_ORDER, valid
from playsuite.cluster.accounting import resolve_costs
from playsuite.registry import Registry

COST_COLUMNS = ("corpus", "preset", "condition", "shard", "wall_s", "gpus", "status")
#: Status a play job gives its record while it runs (playsuite.harness.costs.RUNNING).
RUNNING = "running"
#: Status the analysis gives a record its job never completed.
KILLED = "killed"


def read_cost_records(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """All ``*.tsv`` under ``directory`` (recursively), checked; empty if there are none."""
    files = sorted(Path(directory).rglob("*.tsv")) if Path(directory).is_dir() else []
    frames = []
    for path in files:
        df = pd.read_csv(path, sep="\t", dtype={"slurm_job_id": str})
        missing = [c for c in COST_COLUMNS if c not in df.columns]
        if missing:
            raise ValueError(f"cost record {path}: missing columns {missing}")
        for col in ("wall_s", "gpus"):
            df[col] = pd.to_numeric(df[col], errors="coerce")
            if df[col].isna().any() or (df[col] < 0).any():
                raise ValueError(f"cost record {path}: {col} must be a number >= 0")
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=list(COST_COLUMNS))
    # Slurm jobs: wall time and GPUs as the cluster accounted them, where sacct knows the job.
    return mark_killed(resolve_costs(pd.concat(frames, ignore_index=True)))


def mark_killed(costs: pd.DataFrame) -> pd.DataFrame:
    """Records still saying ``running`` become ``killed``.

    The cost rule runs after every play job has ended, so a record that never got its final
    status belongs to an attempt killed without warning (``kill -9``, the out-of-memory killer, a
    lost node). Its wall time is its last heartbeat, or what sacct accounted; it is counted.
    """
    out = costs.copy()
    out.loc[out["status"].astype(str) == RUNNING, "status"] = KILLED
    return out


def cost_table(
    scores: pd.DataFrame,
    costs: pd.DataFrame,
    condition: str,
    registry: Registry | None,
    exclude: Collection[str] = (),
) -> pd.DataFrame:
    """Per preset: GPU-hours (all jobs), jobs, scored games, GPU-h per 1k, mean progress.

    ``exclude``: presets whose cost records are left out (the engine checks' random-weight
    models: their play jobs write records beside the paper's, but they are no evaluated model).
    """
    costs = costs[~costs["preset"].isin(list(exclude))]
    ok = valid(scores)
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
        at = ok[(ok["preset"] == preset) & (ok["condition"] == condition)]["level"]
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
