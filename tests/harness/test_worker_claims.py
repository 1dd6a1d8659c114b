"""A worker killed outright can take its last queued events with it (a multiprocessing queue
sends through a feeder thread); the job still names the game it held, from the shared claims
array, instead of calling it "not played" (the flake CI showed on 2026-12-07)."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
from pathlib import Path
from typing import Any

from playsuite.corpus import GameEntry
from playsuite.harness.node import _collect, _Outcome, _Workers


def claim_then_die(claims: Any) -> None:  # runs in a forked child
    """Claim the second game and die before any event leaves the process, as in a segfault."""
    claims[0] = 1
    os.kill(os.getpid(), signal.SIGKILL)


class ProgressRecorder:
    """Stands in for the terminal progress display: keeps what it was told."""

    def __init__(self) -> None:
        self.lines: list[tuple[Any, ...]] = []

    def update(self, *args: Any, **_: Any) -> None:
        self.lines.append(args)

    def step(self, *args: Any) -> None:
        self.lines.append(args)


def test_a_worker_dead_before_its_start_event_left_still_fails_the_game_it_held(
    tmp_path: Path,
) -> None:
    # fork: under pytest's importlib import mode a spawned child cannot import this test module
    ctx = mp.get_context("fork")
    games = [
        GameEntry(id=name, title=name, source="pypi", package=name, runtime="pygame")
        for name in ("a", "b")
    ]
    claims = ctx.Array("i", [-1], lock=False)
    proc = ctx.Process(target=claim_then_die, args=(claims,), daemon=True)
    proc.start()
    proc.join(timeout=60)
    assert proc.exitcode == -signal.SIGKILL
    scratch = tmp_path / "w0"
    scratch.mkdir()
    workers = _Workers.__new__(_Workers)  # the real bookkeeping around one dead worker
    workers.todo, workers.claims, workers.count = games, claims, 1
    workers.events, workers.procs, workers.scratch = ctx.Queue(), [proc], {0: scratch}
    outcome = _Outcome()
    _collect(None, workers, None, outcome, ProgressRecorder())  # type: ignore[arg-type]
    assert outcome.failures == {"b": f"worker died (exit code {-signal.SIGKILL})"}
    assert not scratch.exists()
