"""Cost records: one job attempt's wall time and GPUs, one TSV row in its own file.

Play and judge jobs write one file per attempt (``{stem}.{start time}-{pid}.tsv``) when the
attempt starts, rewrite it while it runs and once more when it ends (the heartbeat lives in
playsuite.harness.costs); the analysis reads every file of a folder (playsuite.analysis.cost).
Columns: :data:`COLUMNS` for a play job, :data:`JUDGE_COLUMNS` for a judge job, then
``format`` (:data:`COSTS_FORMAT`). docs/analysis.md "Cost records" says what each means.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playsuite.records.base import FORMAT_FIELD, RecordError, check_format
from playsuite.records.tsv import write_rows

if TYPE_CHECKING:  # pandas and pyarrow cost a play job ~0.6 CPU-s at start: readers only
    import pandas as pd

#: Version of the cost record this code writes (and the newest it reads).
COSTS_FORMAT = 1
#: The status of an attempt that has not ended (or was killed before it could say so).
RUNNING = "running"
#: A play job attempt's record.
COLUMNS = ("corpus", "preset", "condition", "shard", "wall_s", "gpus", "status", "slurm_job_id")
#: A judge job's record: which judge, the play job's columns (the judged episodes' preset), and
#: the two settings Figure 10c compares (empty: the default; playsuite.analysis.efficiency).
JUDGE_COLUMNS = ("judge", *COLUMNS, "prefetch", "max_num_batched_tokens")
#: What every record must hold to be counted (``slurm_job_id`` came later: empty when absent).
REQUIRED = ("corpus", "preset", "condition", "shard", "wall_s", "gpus", "status")
#: Columns that hold numbers >= 0.
NUMBERS = ("wall_s", "gpus")


def write_cost_record(
    path: str | os.PathLike[str], row: Mapping[str, Any], columns: Sequence[str] = COLUMNS
) -> None:
    """Write (or rewrite) one attempt's record atomically; ``row`` holds every column."""
    write_rows(path, columns, [row], COSTS_FORMAT)


def read_cost_record(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One record file, checked: the required columns, numbers >= 0 in :data:`NUMBERS`, a known
    format (:class:`~playsuite.records.base.RecordError` naming the file otherwise)."""
    import pandas as pd

    try:
        df = pd.read_csv(path, sep="\t", dtype={"slurm_job_id": str, FORMAT_FIELD: str})
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise RecordError(path, f"cost record cannot be read: {exc}") from None
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise RecordError(path, f"cost record: missing columns {missing}")
    if FORMAT_FIELD in df.columns:
        for value in df[FORMAT_FIELD].fillna(""):
            check_format(path, value, COSTS_FORMAT, "cost record")
        df = df.drop(columns=FORMAT_FIELD)
    for col in NUMBERS:
        df[col] = pd.to_numeric(df[col], errors="coerce")
        if df[col].isna().any() or (df[col] < 0).any():
            raise RecordError(path, f"cost record: {col} must be a number >= 0")
    return df


def read_cost_folder(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """Every record (``*.tsv``) under ``directory``, recursively, as one table; a folder that
    is absent or holds none gives an empty table with the required columns."""
    import pandas as pd

    root = Path(directory)
    files = sorted(root.rglob("*.tsv")) if root.is_dir() else []
    frames = [read_cost_record(path) for path in files]
    if not frames:
        return pd.DataFrame(columns=list(REQUIRED))
    return pd.concat(frames, ignore_index=True)
