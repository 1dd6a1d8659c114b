"""The play job's view of its workers: a live table on a terminal, log lines otherwise."""

from __future__ import annotations

import sys
from typing import Any

from playsuite.harness.job import ShardJob


class Progress:
    """Live view of each worker (rich) when attached to a terminal; plain log lines otherwise."""

    def __init__(self, job: ShardJob, total: int) -> None:
        self.job = job
        self.total = total
        self.done = 0
        self.rows: dict[int, tuple[str, str, str]] = {}
        self._live: Any = None
        if job.live and sys.stderr.isatty():
            from rich.console import Console
            from rich.live import Live

            self._live = Live(self._table(), console=Console(stderr=True), refresh_per_second=4)
            self._live.start()

    def _table(self) -> Any:
        from rich.table import Table

        title = (
            f"{self.job.preset.name} · {self.job.condition.name} · {self.job.corpus} "
            f"{self.job.shard} — {self.done}/{self.total} episodes"
        )
        table = Table(title=title)
        for col in ("worker", "game", "step", "status"):
            table.add_column(col)
        for worker in sorted(self.rows):
            game, step, status = self.rows[worker]
            table.add_row(str(worker), game, step, status)
        return table

    def update(self, worker: int, game: str, step: str, status: str, log: bool = False) -> None:
        self.rows[worker] = (game, step, status)
        if self._live is not None:
            self._live.update(self._table())
        elif log:
            print(f"[worker {worker}] {game}: {status}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
