"""Launch test (paper Figure 10a): fixed overhead per game before its first captured frame.

Three launchers are timed on the same games, from the call that starts the game to its first
real frame:

* ``fixed`` -- the naive launcher: fresh display and browser per game, then a fixed wait before
  the first capture. Its overhead is the configured wait, or the real readiness time where a game
  takes longer (a fixed-wait launcher would have captured a game that was not ready: the row's
  status says ``late``).
* ``polling`` -- fresh display and browser per game, readiness polled (the runtime's own
  ``start()``, which returns once the first picture has settled: :mod:`.screen_settle`).
* ``reuse`` -- readiness polling, and the worker's browser (browser games) or virtual display
  and shader cache (native and OpenGL games) kept running across games, as the harness does
  (:class:`~playsuite.runtimes.resources.WorkerResources`). Other pygame games have nothing to
  keep: their ``reuse`` rows are timed like ``polling``.

Each launch is a real start of the game in its sandbox; a game that fails to start gets a row
with status ``failed`` and its error.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playsuite.corpus import GameEntry
from playsuite.runtimes.base import Runtime, RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.resources import WorkerResources

LAUNCHERS = ("fixed", "polling", "reuse")
COLUMNS = ("game", "runtime", "launcher", "launch_s", "ready_s", "status", "error")


def sample_games(games: Sequence[GameEntry], n: int, seed: int) -> list[GameEntry]:
    """``n`` games drawn without replacement (seeded), in corpus order; all if fewer."""
    if n >= len(games):
        return list(games)
    picked = set(random.Random(seed).sample(range(len(games)), n))
    return [g for i, g in enumerate(games) if i in picked]


@contextmanager
def _worker() -> Iterator[WorkerResources]:
    """A ``reuse`` launcher's resources, in a scratch folder removed at the end; its Chromium
    starts before the first timed launch."""
    with (
        tempfile.TemporaryDirectory(prefix="playsuite-launch-worker-") as scratch,
        WorkerResources(Path(scratch), warm=True) as resources,
    ):
        yield resources


def time_launch(
    game: GameEntry,
    files: Path,
    launcher: str,
    worker: WorkerResources,
    fixed_wait_s: float,
    make: Callable[[GameEntry, RuntimeOptions], Runtime] = make_runtime,
) -> dict[str, Any]:
    """One launch of ``game`` with ``launcher``; a row of the launch table."""
    if launcher not in LAUNCHERS:
        raise ValueError(f"unknown launcher {launcher!r}; known: {', '.join(LAUNCHERS)}")
    row: dict[str, Any] = {"game": game.id, "runtime": game.runtime, "launcher": launcher}
    with tempfile.TemporaryDirectory(prefix="playsuite-launch-") as tmp:
        options = RuntimeOptions(workdir=Path(tmp), game_dir=files)
        if launcher == "reuse":
            options = worker.options_for(game, options)
        runtime = make(game, options)
        try:
            started = time.perf_counter()
            runtime.start()
            ready = time.perf_counter() - started
            status = "ok"
            if launcher == "fixed":
                if ready < fixed_wait_s:
                    time.sleep(fixed_wait_s - ready)  # the naive launcher waits regardless
                else:
                    status = "late"
            row.update(
                launch_s=round(time.perf_counter() - started, 4),
                ready_s=round(ready, 4),
                status=status,
                error="",
            )
        except Exception as exc:  # a game that does not start is a row, not the end of the test
            row.update(launch_s=None, ready_s=None, status="failed", error=f"{exc}"[:300])
        finally:
            runtime.close()
    return row


def launch_test(
    games: Sequence[GameEntry],
    files: dict[str, Path],
    fixed_wait_s: float,
    launchers: Sequence[str] = LAUNCHERS,
    make: Callable[[GameEntry, RuntimeOptions], Runtime] = make_runtime,
) -> list[dict[str, Any]]:
    """Every game with every launcher (launcher by launcher, so a ``reuse`` launcher's browser
    and display are warm for all but its first game, as in a worker)."""
    rows = []
    with _worker() as worker:
        for launcher in launchers:
            for game in games:
                rows.append(time_launch(game, files[game.id], launcher, worker, fixed_wait_s, make))
    return rows
