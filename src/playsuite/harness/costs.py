"""A play or judge job attempt's cost record: written at its start, kept current, completed.

The cost figure counts every attempt's GPU time, failed ones included (docs/analysis.md). A record
written only at the end misses exactly the attempts that cost the most without result: a job
killed by ``kill -9``, the out-of-memory killer or a node failure never reaches its end. So the
record is written first with status ``running``, rewritten every ``heartbeat_s`` with the wall
time so far, and rewritten once more with the final status. A record still saying ``running``
after its job is gone is a killed attempt; its wall time is the last heartbeat (under Slurm, sacct
replaces it with what the cluster accounted, playsuite.cluster.accounting). The record's format
is the contract of playsuite.records.costs; this module keeps it current.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from playsuite.records.costs import COLUMNS, JUDGE_COLUMNS, RUNNING, write_cost_record

#: Seconds between rewrites of a running attempt's wall time.
HEARTBEAT_S = 30.0
#: The record's columns and statuses are the contract of playsuite.records.costs.
__all__ = ["COLUMNS", "HEARTBEAT_S", "JUDGE_COLUMNS", "RUNNING", "CostRecord"]


class CostRecord:
    """One TSV row per attempt in its own file (``{stem}.{start time}-{pid}.tsv``), so failed and
    retried attempts are all counted and no two attempts write the same file."""

    def __init__(
        self,
        stem: Path,
        fields: dict[str, str | int],
        heartbeat_s: float = HEARTBEAT_S,
        columns: Sequence[str] = COLUMNS,
    ) -> None:
        self.path = stem.with_name(f"{stem.stem}.{int(time.time())}-{os.getpid()}.tsv")
        self.fields = dict(fields)
        self.columns = tuple(columns)
        self.heartbeat_s = heartbeat_s
        self._started = time.perf_counter()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _write(self, status: str) -> None:
        row = {
            **self.fields,
            "wall_s": f"{time.perf_counter() - self._started:.3f}",
            "status": status,
            # under Slurm the cost figure takes wall time and GPUs from sacct; empty elsewhere
            "slurm_job_id": os.environ.get("SLURM_JOB_ID", ""),
        }
        write_cost_record(self.path, row, self.columns)

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat_s):
            with contextlib.suppress(OSError):  # a full disk must not end the job from here
                self._write(RUNNING)

    def start(self) -> CostRecord:
        """Write the record as ``running`` and keep its wall time current until :meth:`finish`."""
        self._write(RUNNING)
        self._thread = threading.Thread(target=self._beat, name="cost-heartbeat", daemon=True)
        self._thread.start()
        return self

    def finish(self, status: str) -> None:
        """The attempt ended with ``status`` (``ok``, ``failed``, ``terminated``, ...)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._write(status)
