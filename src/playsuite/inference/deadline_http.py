"""HTTP requests that end by a deadline: the one way this package talks to a model server.

httpx's timeouts bound each socket operation (connect, one read, one write, a pool wait), not a
request: a server that sends a byte every few seconds, or a connection whose reads each return
just inside the limit, keeps a request alive for ever under a "10 s timeout". A model request
here must end when its budget is spent, so the episode's wall limit and a step's budget hold.

:class:`DeadlineHTTP` gives a blocking call (what the harness, the judges and the catalog
classifiers use, from many threads at once) over httpx's *async* client, which runs on an event
loop in a thread of its own. Each request runs as a task under ``asyncio.timeout``: when the
deadline passes the task is cancelled, httpcore closes the connection (a request cancelled
half-way is never reused) and the caller gets :class:`DeadlineExceeded`. Closing the connection
is also what tells vLLM to abort the request: its API server watches every request for the
client's disconnect and cancels the generation (docs/inference.md, "Deadlines").

The loop and its client are made at first use and again after a ``fork`` (a forked child has
the parent's objects but not its threads).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
import time
from collections.abc import Mapping
from typing import Any

import httpx

#: Connect limit of one request, within its deadline.
CONNECT_TIMEOUT_S = 5.0


class DeadlineExceeded(httpx.TimeoutException):
    """A request did not finish within its deadline; it was cancelled and its connection closed.
    An :class:`httpx.TimeoutException`, so code that catches httpx's errors catches it too."""


def _quiet_cancelled_connect(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's exception handler: drop the one known harmless report, pass on the rest.

    anyio's Unix-socket connect waits for writability on a future whose ``set_result`` the
    loop calls; a connect cancelled by its deadline after the socket became writable leaves
    that call queued, and it fails on the cancelled future (``InvalidStateError``) after the
    request has already ended. Nothing is lost; everything else goes to the default handler.
    """
    exc = context.get("exception")
    handle = repr(context.get("handle", ""))
    if isinstance(exc, asyncio.InvalidStateError) and "Future.set_result" in handle:
        return
    loop.default_exception_handler(context)


class DeadlineHTTP:
    """A thread-safe blocking HTTP client whose every request ends by its deadline.

    ``uds`` (a Unix socket path) or ``base_url`` names the server, as for :class:`httpx.Client`;
    ``headers`` go with every request; at most ``max_connections`` are open at once.
    """

    def __init__(
        self,
        *,
        uds: str | None = None,
        base_url: str = "http://localhost",
        headers: Mapping[str, str] | None = None,
        max_connections: int = 8,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
    ) -> None:
        self.uds = uds
        self.base_url = base_url
        self.headers = dict(headers or {})
        self.max_connections = max_connections
        self.connect_timeout_s = connect_timeout_s
        # reentrant: a server's stop() may close this from a signal handler in the same thread
        self._lock = threading.RLock()
        self._pid = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: httpx.AsyncClient | None = None
        self._closed = False

    # -- the loop -------------------------------------------------------------------------------

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        """This process's loop thread, started at first use (and anew in a forked child)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("this HTTP client was closed")
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                loop.set_exception_handler(_quiet_cancelled_connect)
                thread = threading.Thread(
                    target=loop.run_forever, name="playsuite-http", daemon=True
                )
                thread.start()
                self._loop, self._thread, self._client = loop, thread, None
                self._pid = os.getpid()
            return self._loop

    def _async_client(self) -> httpx.AsyncClient:
        """The loop's client; made on the loop (its connection pool belongs to that loop)."""
        if self._client is None:
            transport = httpx.AsyncHTTPTransport(uds=self.uds, retries=0)
            self._client = httpx.AsyncClient(
                transport=transport,
                base_url=self.base_url,
                headers=self.headers,
                limits=httpx.Limits(
                    max_connections=self.max_connections,
                    max_keepalive_connections=self.max_connections,
                ),
            )
        return self._client

    # -- requests -------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        url: str,
        *,
        timeout_s: float,
        json: Any = None,
    ) -> httpx.Response:
        """Send one request and read its whole answer within ``timeout_s`` seconds.

        Raises :class:`DeadlineExceeded` when the budget is spent (the request is cancelled and
        its connection closed first), or httpx's own errors (connection refused, a broken
        connection, ...). A caller interrupted while it waits (a signal handler raising, say)
        cancels the request the same way before the exception goes on.
        """
        if timeout_s <= 0:
            raise DeadlineExceeded(f"{method} {url}: no time left for the request")
        # The deadline counts from this call, not from when the loop gets to the request.
        deadline = time.monotonic() + timeout_s
        loop = self._running_loop()
        future = asyncio.run_coroutine_threadsafe(
            self._send(method, url, json, timeout_s, deadline), loop
        )
        try:
            # The loop enforces the deadline; the margin only guards against a wedged loop.
            return future.result(timeout=timeout_s + CONNECT_TIMEOUT_S)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise DeadlineExceeded(f"{method} {url}: the request loop did not answer") from None
        except BaseException:
            # The caller gave up (an exception in this thread while waiting): cancel the task,
            # which closes its connection, then let the exception go on.
            future.cancel()
            raise

    async def _send(
        self, method: str, url: str, body: Any, timeout_s: float, deadline: float
    ) -> httpx.Response:
        """``deadline`` is on ``time.monotonic()``, the clock of asyncio's loops."""
        client = self._async_client()
        # httpx's own limits only for the connect; the deadline bounds everything else.
        timeout = httpx.Timeout(None, connect=min(self.connect_timeout_s, timeout_s))
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout_at(deadline):
                response = await client.request(method, url, json=body, timeout=timeout)
        except TimeoutError:
            raise DeadlineExceeded(
                f"{method} {url}: no complete answer within {timeout_s:g} s (cancelled)"
            ) from None
        late = loop.time() - deadline
        if late > 0:
            # A backstop: asyncio.timeout only cancels a task that is still waiting, so a task
            # that finished in the same loop turn as its timer fell due returns normally. The
            # answer is still past its deadline.
            raise DeadlineExceeded(
                f"{method} {url}: answered {late:.2f} s after its {timeout_s:g} s deadline"
            )
        return response

    def get(self, url: str, *, timeout_s: float) -> httpx.Response:
        return self.request("GET", url, timeout_s=timeout_s)

    def post(self, url: str, *, json: Any, timeout_s: float) -> httpx.Response:
        return self.request("POST", url, json=json, timeout_s=timeout_s)

    # -- close ----------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connections and stop the loop thread (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread, client = self._loop, self._thread, self._client
            mine = self._pid == os.getpid()
        if loop is None or not mine or thread is None:
            return
        if client is not None:
            done = asyncio.run_coroutine_threadsafe(client.aclose(), loop)
            with contextlib.suppress(Exception):  # best effort: the loop stops either way
                done.result(timeout=CONNECT_TIMEOUT_S)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=CONNECT_TIMEOUT_S)
        if not thread.is_alive():
            loop.close()

    def __enter__(self) -> DeadlineHTTP:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
