"""The play job's view of its workers: a live table on a terminal, log lines otherwise.

A batch job's log is no terminal, and one line per game says nothing for the minutes an episode
takes. So without a terminal each worker also logs where it stands, ``[worker 2] GAME: step
14/100 (t=42s)``, at its first step and then at most once every :data:`STEP_LOG_S` seconds: enough
to see which game a stuck job is on and how far it got, few enough lines for a shard of hundreds
of episodes. ``N`` is the most steps the episode's caps allow (it may end sooner), ``?`` when no
cap bounds it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Any

from playsuite.harness.job import ShardJob

#: Seconds between two step lines of one worker in a log (not on a terminal).
STEP_LOG_S = 30.0


class Progress:
    """Live view of each worker (rich) when attached to a terminal; plain log lines otherwise."""

    def __init__(
        self,
        job: ShardJob,
        total: int,
        *,
        step_log_s: float = STEP_LOG_S,
        clock: Callable[[], float] = time.monotonic,
        stream: IO[str] | None = None,
    ) -> None:
        self.job = job
        self.total = total
        self.done = 0
        self.rows: dict[int, tuple[str, str, str]] = {}
        self.step_log_s = step_log_s
        self._clock = clock
        self._stream = stream
        self._last_step_line: dict[int, float] = {}
        self._budgets = {
            game.id: job.limits_for(game).step_budget(job.condition.step_seconds, job.fps_for(game))
            for game in job.games
        }
        self._live: Any = None
        if job.live and stream is None and sys.stderr.isatty():
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

    def _print(self, line: str) -> None:
        print(line, file=self._stream or sys.stderr, flush=True)

    def update(self, worker: int, game: str, step: str, status: str, log: bool = False) -> None:
        """Show a worker's game, step and status; ``log``: also as a log line off a terminal
        (an episode starting or ending)."""
        self.rows[worker] = (game, step, status)
        if log:
            self._last_step_line.pop(worker, None)  # the next episode's first step is logged
        if self._live is not None:
            self._live.update(self._table())
        elif log:
            self._print(f"[worker {worker}] {game}: {status}")

    def step(self, worker: int, game: str, step: int, t_game: float) -> None:
        """A worker finished step ``step`` (1-based) of ``game`` at game time ``t_game``: shown
        live on a terminal, logged at most every ``step_log_s`` seconds per worker otherwise."""
        budget = self._budgets.get(game)
        of = f"{step}/{budget if budget is not None else '?'}"
        self.update(worker, game, of, f"t={t_game:.0f}s")
        if self._live is not None:
            return
        now = self._clock()
        last = self._last_step_line.get(worker)
        if last is None or now - last >= self.step_log_s:
            self._last_step_line[worker] = now
            self._print(f"[worker {worker}] {game}: step {of} (t={t_game:.0f}s)")

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
