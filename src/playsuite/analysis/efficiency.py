"""Efficiency measurements (paper Figure 10): launch overhead, play and judge throughput.

Three TSVs under ``analysis.benchmarks`` feed the figure (docs/analysis.md "Benchmark outputs").
Rules produce them (rules/analysis.smk): ``efficiency_launch`` times each launcher on a sample of
the corpus's games (:mod:`playsuite.runtimes.launchtest`), ``efficiency_concurrency`` plays the
same games with 1..W workers sharing one model server, and ``efficiency_judge`` derives judge
throughput from the judge jobs' cost records and shard manifests (:func:`judge_throughput`). A
TSV written by hand (or by a benchmark script) in the folder is read as well. Missing files are not
an error: the figure says what is missing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: file name -> required columns
BENCHMARK_FILES: dict[str, tuple[str, ...]] = {
    "launch.tsv": ("runtime", "game", "launch_s"),
    "throughput.tsv": ("workers", "episodes_per_hour"),
    "judge.tsv": ("videos_per_hour",),
}


@dataclass(frozen=True)
class ConcurrencySettings:
    preset: str
    condition: str = "k0-hz0.33-base"
    workers: tuple[int, ...] = (1, 2, 4, 8)
    steps: int | None = None  # None: the play section's steps (full episodes)


@dataclass(frozen=True)
class EfficiencySettings:
    """``analysis.efficiency``: which Figure 10 measurements the workflow makes, on what.

    ``launch`` and ``concurrency`` start real games (and, for a served preset, a model server)
    and are off unless configured; ``judge`` only reads the judge jobs' records.
    """

    corpus: str | None = None  # games of this corpus (a key of `corpora`)
    games: int = 50  # launch and concurrency games: a seeded sample of the corpus
    seed: int = 0
    launch: bool = False
    fixed_wait_s: float = 90.0  # the naive launcher's wait before its first capture
    concurrency: ConcurrencySettings | None = None
    judge: str | None = None  # the judge whose throughput panel (c) shows

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> EfficiencySettings:
        raw = dict((config.get("analysis") or {}).get("efficiency") or {})
        conc = raw.get("concurrency")
        return cls(
            corpus=raw.get("corpus"),
            games=int(raw.get("games", cls.games)),
            seed=int(raw.get("seed", config.get("seed", 0))),
            launch=bool(raw.get("launch", False)),
            fixed_wait_s=float(raw.get("fixed_wait_s", cls.fixed_wait_s)),
            concurrency=None
            if not conc
            else ConcurrencySettings(
                preset=conc["preset"],
                condition=conc.get("condition", ConcurrencySettings.condition),
                workers=tuple(int(w) for w in conc.get("workers", ConcurrencySettings.workers)),
                steps=conc.get("steps"),
            ),
            judge=raw.get("judge"),
        )

    def needs_games(self) -> bool:
        return self.launch or self.concurrency is not None


def throughput_table(
    runs: Sequence[tuple[int, Sequence[str], pd.DataFrame]],
) -> pd.DataFrame:
    """Panel (b): per worker count, episodes per hour and evaluations per GPU-hour.

    ``runs``: ``(workers, statuses of the episodes played, cost records of the job)``; the
    job's time is the sum over its attempts (model-server start-up included); evaluations are
    the episodes that ended ``ok``. Without GPUs (a baseline) the GPU rate is undefined.
    """
    rows = []
    for workers, statuses, costs in runs:
        episodes = sum(s == "ok" for s in statuses)
        wall_h = float(costs["wall_s"].sum() / 3600.0)
        gpu_h = float((costs["wall_s"] * costs["gpus"]).sum() / 3600.0)
        rows.append(
            {
                "workers": workers,
                "episodes": episodes,
                "wall_hours": wall_h,
                "gpu_hours": gpu_h,
                "episodes_per_hour": episodes / wall_h if wall_h else np.nan,
                "evaluations_per_gpu_hour": episodes / gpu_h if gpu_h else np.nan,
            }
        )
    return pd.DataFrame(rows).sort_values("workers").reset_index(drop=True)


def manifest_unit(path: str | os.PathLike[str]) -> tuple[str, str, str, str, str]:
    """``(judge, corpus, preset, condition, shard)`` of a judge shard manifest path
    (``.../judgements/{judge}/{corpus}/{preset}/{condition}/shards/{shard}.tsv``)."""
    parts = Path(path).parts
    if len(parts) < 6 or parts[-2] != "shards":
        raise ValueError(f"not a judge shard manifest path: {path}")
    return (parts[-6], parts[-5], parts[-4], parts[-3], Path(parts[-1]).stem)


def read_benchmarks(directory: str | os.PathLike[str]) -> dict[str, pd.DataFrame | None]:
    """Each benchmark table, or None where the benchmark has not been run."""
    out: dict[str, pd.DataFrame | None] = {}
    for name, cols in BENCHMARK_FILES.items():
        path = Path(directory) / name
        if not path.exists():
            out[name] = None
            continue
        df = pd.read_csv(path, sep="\t")
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise ValueError(f"{path}: missing columns {missing}")
        out[name] = df
    return out


def judge_setting(prefetch: object, batched_tokens: object) -> str:
    """The label of a judge configuration in Figure 10c (empty fields: the defaults)."""

    def given(value: object) -> str:
        if value is None or (isinstance(value, float) and np.isnan(value)) or str(value) == "":
            return ""
        return str(int(float(value)))  # type: ignore[arg-type]

    pre, tokens = given(prefetch), given(batched_tokens)
    return (
        f"prefetch {'off' if pre == '0' else (pre or 'on')}, "
        f"batched tokens {tokens or 'engine default'}"
    )


def judge_throughput(
    costs: pd.DataFrame, manifests: Mapping[tuple[str, str, str, str, str], str | os.PathLike[str]]
) -> pd.DataFrame:
    """Videos judged per hour and per GPU-hour, per judge and setting, end to end.

    ``costs``: judge cost records (every attempt, with its ``prefetch`` and
    ``max_num_batched_tokens``); ``manifests``: the shard manifest of each
    ``(judge, corpus, preset, condition, shard)``. A shard's videos are its manifest's rows with
    status ``ok``; its time is the sum over its attempts (engine start-up and failed attempts
    included), so the numbers are end-to-end throughput, not the steady state.
    """
    from playsuite.records.manifest import read_judge_manifest

    columns = [
        "judge",
        "setting",
        "shards",
        "videos",
        "wall_hours",
        "gpu_hours",
        "videos_per_hour",
        "videos_per_gpu_hour",
    ]
    if costs.empty:
        return pd.DataFrame(columns=columns)
    df = costs.copy()
    for col in ("prefetch", "max_num_batched_tokens"):
        if col not in df:
            df[col] = ""
    df["setting"] = [
        judge_setting(p, t)
        for p, t in zip(df["prefetch"], df["max_num_batched_tokens"], strict=True)
    ]
    key = ["judge", "corpus", "preset", "condition", "shard"]
    for col in key:
        df[col] = df[col].astype(str)
    rows = []
    for (judge, setting), group in df.groupby(["judge", "setting"], sort=True):
        shards = sorted({tuple(r) for r in group[key].itertuples(index=False)})
        videos = 0
        for unit in shards:
            path = manifests.get(unit)  # type: ignore[arg-type]
            if path is not None and Path(path).exists():
                videos += sum(r["status"] == "ok" for r in read_judge_manifest(path))
        wall_h = float(group["wall_s"].sum() / 3600.0)
        gpu_h = float((group["wall_s"] * group["gpus"]).sum() / 3600.0)
        rows.append(
            {
                "judge": judge,
                "setting": setting,
                "shards": len(shards),
                "videos": videos,
                "wall_hours": wall_h,
                "gpu_hours": gpu_h,
                "videos_per_hour": videos / wall_h if wall_h else np.nan,
                "videos_per_gpu_hour": videos / gpu_h if gpu_h else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=columns)
