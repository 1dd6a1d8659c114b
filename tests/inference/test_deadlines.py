"""A model request's timeout is a deadline: the request ends by it, whatever the server does.

The stand-in's ``--trickle`` answers a byte at a time: every read returns well inside any
per-read timeout, the answer never ends in time. httpx's own timeout (per socket operation) lets
such a request run to its end; the client's deadline cancels it and closes the connection.
"""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from playsuite.inference import InferenceClient, InferenceUnavailable, RetryPolicy
from playsuite.inference.deadline_http import DeadlineExceeded, DeadlineHTTP
from playsuite.inference.limits import RequestPacer

ONE_TRY = RetryPolicy(attempts=1)
ASK = [{"role": "user", "content": "x"}]


def _wait_for(predicate, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.slow
def test_a_trickling_answer_outlives_a_per_read_timeout_but_not_the_deadline(standin):
    server = standin(trickle_s=0.01, answers=["x"])  # ~300 bytes: about 3 s, one byte a time
    body = {"model": "standin", "messages": ASK}
    # httpx's timeout bounds each read: the whole answer comes, long after its "1 s timeout"
    with httpx.Client(transport=httpx.HTTPTransport(uds=server.uds)) as plain:
        started = time.monotonic()
        reply = plain.post("http://localhost/v1/chat/completions", json=body, timeout=1.0)
        assert reply.status_code == 200 and time.monotonic() - started > 1.5
    # The deadline ends the same request (a per-read limit would have let the answer come in
    # its ~3 s, each read far inside 1 s), and the server sees the connection closed half-way.
    # That, not a wall-time bound, is the proof: it holds however busy the machine is.
    with DeadlineHTTP(uds=server.uds) as http, pytest.raises(DeadlineExceeded, match="within 1 s"):
        http.post("/v1/chat/completions", json=body, timeout_s=1.0)
    assert _wait_for(lambda: "client hung up after" in server.log_tail(50))


def test_a_chat_attempt_ends_by_the_clients_timeout(standin):
    server = standin(trickle_s=0.05)  # the answer would take about 20 s
    with InferenceClient(server.uds, "standin", retry=ONE_TRY, timeout_s=0.5) as client:
        started = time.monotonic()
        with pytest.raises(InferenceUnavailable, match="timed out"):
            client.chat(ASK)
        assert time.monotonic() - started < 15.0  # the whole answer would take about 20 s
        assert client.health()  # the server is fine: only that request was given up


def test_retries_share_the_calls_budget(standin):
    server = standin(trickle_s=0.05)
    retry = RetryPolicy(attempts=5, backoff_s=0.01, backoff_max_s=0.01)
    with InferenceClient(server.uds, "standin", retry=retry, timeout_s=1.0) as client:
        started = time.monotonic()
        with pytest.raises(InferenceUnavailable, match=r"1\.5 s budget was spent"):
            client.chat(ASK, timeout_s=1.5)  # five 1 s attempts would take 5 s
        assert time.monotonic() - started < 4.5


def test_no_backoff_is_begun_that_would_outlast_the_budget(sock_dir):
    retry = RetryPolicy(attempts=4, backoff_s=5.0, jitter=0.0)  # nothing listens on the socket
    with InferenceClient(str(sock_dir / "none.sock"), "m", retry=retry) as client:
        started = time.monotonic()
        with pytest.raises(InferenceUnavailable, match="would start past it"):
            client.chat(ASK, timeout_s=1.0)
        assert time.monotonic() - started < 4.5  # not the 5 s wait


class _WatchedSlot:
    """One request slot that says when it was first taken."""

    def __init__(self) -> None:
        self._sem = threading.BoundedSemaphore(1)
        self.taken = threading.Event()

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        got = self._sem.acquire(block, timeout)
        if got:
            self.taken.set()
        return got

    def release(self) -> None:
        self._sem.release()


def test_a_wait_for_a_busy_slot_comes_out_of_the_budget(standin):
    server = standin(latency_s=6.0)
    slot = _WatchedSlot()
    with InferenceClient(server.uds, "standin", retry=ONE_TRY, slots=slot) as client:
        holder = threading.Thread(target=client.chat, args=(ASK,))
        holder.start()
        assert slot.taken.wait(10)
        started = time.monotonic()
        with pytest.raises(InferenceUnavailable, match="slot stayed busy"):
            client.chat(ASK, timeout_s=0.5)
        assert time.monotonic() - started < 5.0  # it did not wait for the holder's 6 s
        holder.join()


def test_a_pacer_turn_past_the_deadline_is_not_booked() -> None:
    pacer = RequestPacer(requests_per_minute=60)  # one start a second
    now = time.monotonic()
    assert pacer.wait() is not None  # the first start is free
    assert pacer.wait(latest=now + 0.5) is None  # the next is a second away: not taken
    booked = pacer.wait(latest=now + 30)  # the turn refused above is still free
    assert booked is not None and booked - now < 1.5  # not the turn after it (2 s)


def test_a_closed_client_refuses_requests() -> None:
    http = DeadlineHTTP(uds="/nonexistent.sock")
    http.close()
    with pytest.raises(RuntimeError, match="closed"):
        http.get("/health", timeout_s=1.0)


def test_the_deadline_counts_from_the_call_even_when_the_request_loop_is_held_up(standin):
    """A request loop that gets to a request only after its deadline (held up as a starved
    process is, docs/inference.md, "Deadlines") times it out, though the server would answer
    at once: the deadline counts from the caller's call, not from when the loop starts it."""
    server = standin(answers=["x"])
    body = {"model": "standin", "messages": ASK}
    with DeadlineHTTP(uds=server.uds) as http:
        assert http.post("/v1/chat/completions", json=body, timeout_s=5.0).status_code == 200
        loop = http._running_loop()  # the request loop, here blocked as a starved one would be
        loop.call_soon_threadsafe(time.sleep, 1.5)
        with pytest.raises(DeadlineExceeded):
            http.post("/v1/chat/completions", json=body, timeout_s=0.5)
