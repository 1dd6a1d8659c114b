"""Request limits a whole play job keeps against a hosted endpoint (a preset of kind ``openai``).

A hosted API bounds its callers by concurrent requests and by requests per minute, per key. A
play job's workers are separate processes, each with its own client, so a per-client limit would
multiply by the number of workers; these objects are made once by the job and handed to every
worker at its start, so all of them draw from the same budget:

* :class:`JobLimits` ``slots``: a semaphore of ``endpoint.max_concurrency`` requests in flight;
* :class:`RequestPacer`: request starts at least ``60 / requests_per_minute`` seconds apart.

Both work between threads of one process as well (made without a multiprocessing context).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any


class _Cell:
    """A float with a ``value``, like ``multiprocessing.Value("d")``, for one process."""

    def __init__(self, value: float) -> None:
        self.value = value


class RequestPacer:
    """Spaces request starts ``60 / requests_per_minute`` seconds apart, over every thread (and,
    when made with a multiprocessing ``ctx``, every process it is handed to).

    Each caller books the next free start time under a lock and sleeps until then outside it, so
    a burst of callers is served in order, one interval apart. The monotonic clock is the same
    for all processes of the machine, so booked times compare across them.
    """

    def __init__(self, requests_per_minute: float, ctx: Any = None) -> None:
        if requests_per_minute <= 0:
            raise ValueError(f"requests_per_minute must be > 0, got {requests_per_minute}")
        self.interval_s = 60.0 / requests_per_minute
        if ctx is None:
            self._lock: Any = threading.Lock()
            self._next: Any = _Cell(0.0)
        else:
            self._lock = ctx.Lock()
            self._next = ctx.Value("d", 0.0, lock=False)

    def wait(self, latest: float | None = None) -> float | None:
        """Sleep until this caller's start time; returns that time (``time.monotonic()``).

        ``latest`` (a ``time.monotonic()`` value) is the last start the caller can use, its
        request's deadline: a caller whose turn would come later books nothing (the turn stays
        free for others) and gets None at once."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next.value)
            if latest is not None and start >= latest:
                return None
            self._next.value = start + self.interval_s
        delay = start - now
        if delay > 0:
            time.sleep(delay)
        return start


@dataclass
class JobLimits:
    """What every worker's client of one play job shares: ``slots`` (requests in flight) and an
    optional ``pacer`` (request starts per minute)."""

    slots: Any
    pacer: RequestPacer | None = None

    @classmethod
    def for_endpoint(cls, endpoint: Any, ctx: Any = None) -> JobLimits:
        """The limits of a registry :class:`~playsuite.registry.Endpoint`; ``ctx``: the
        multiprocessing context the job's workers are started with (None: threads only)."""
        slots = (
            threading.BoundedSemaphore(endpoint.max_concurrency)
            if ctx is None
            else ctx.BoundedSemaphore(endpoint.max_concurrency)
        )
        rpm = endpoint.requests_per_minute
        return cls(slots=slots, pacer=RequestPacer(rpm, ctx) if rpm else None)
