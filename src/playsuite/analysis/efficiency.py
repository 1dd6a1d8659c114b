"""Efficiency measurements (paper Figure 10) from benchmark outputs.

The harness and judge benchmarks write small TSVs (docs/analysis.md "Benchmark outputs"):
launch overhead per game, play throughput against the number of workers, judge throughput
against concurrent requests. Missing files are not an error: the figure says what is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

#: file name -> required columns
BENCHMARK_FILES: dict[str, tuple[str, ...]] = {
    "launch.tsv": ("runtime", "game", "launch_s"),
    "throughput.tsv": ("workers", "episodes_per_hour"),
    "judge.tsv": ("concurrency", "videos_per_hour"),
}


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
