"""A test helper: a real HTTP proxy on loopback that refuses the first requests, then forwards.

Hosted APIs answer ``429 Too Many Requests`` (often with ``Retry-After``) or a 5xx when a caller
is over its limits; the client must wait and retry, and the harness must record that it did. No
hosted API can be asked to misbehave on cue, so tests put this proxy in front of a real server
(vLLM serving over TCP, or the stand-in on its Unix socket) and script the first answers::

    with ThrottlingProxy("http://127.0.0.1:8000", refusals=[429, 429]) as proxy:
        client = InferenceClient(None, "m", base_url=proxy.url + "/v1", api_key="k")

Every request after the scripted refusals is forwarded unchanged (method, path, headers such as
``Authorization``, body), and the upstream's answer is returned unchanged. ``log`` lists each
request's path and the status the proxy answered, so a test can see what the client did.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

#: Request headers not passed on: they describe this hop, not the request.
_HOP_HEADERS = frozenset(
    {"host", "connection", "content-length", "transfer-encoding", "keep-alive"}
)


@dataclass(frozen=True)
class Refusal:
    """One scripted answer: ``status``, and ``retry_after`` for its ``Retry-After`` header."""

    status: int = 429
    retry_after: str | None = None


class ThrottlingProxy:
    """Answers the first ``len(refusals)`` requests to ``/v1/chat/completions`` with the
    scripted refusals, forwards everything else to ``upstream`` (``http://host:port``, or
    ``unix:PATH`` for a server on a Unix socket)."""

    def __init__(self, upstream: str, refusals: Sequence[int | Refusal] = ()) -> None:
        self._refusals = [r if isinstance(r, Refusal) else Refusal(r) for r in refusals]
        self._lock = threading.Lock()
        #: ``(path, status)`` of every request, in arrival order
        self.log: list[tuple[str, int]] = []
        if upstream.startswith("unix:"):
            transport = httpx.HTTPTransport(uds=upstream.removeprefix("unix:"))
            base = "http://localhost"
        else:
            transport, base = httpx.HTTPTransport(), upstream.rstrip("/")
        self._upstream = httpx.Client(transport=transport, base_url=base, timeout=600.0)
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, the proxy's root."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def statuses(self, path: str = "/v1/chat/completions") -> list[int]:
        """The statuses answered to requests for ``path``, in order."""
        with self._lock:
            return [status for p, status in self.log if p == path]

    def _next_refusal(self, path: str) -> Refusal | None:
        with self._lock:
            if path.endswith("/chat/completions") and self._refusals:
                return self._refusals.pop(0)
        return None

    def _record(self, path: str, status: int) -> None:
        with self._lock:
            self.log.append((path, status))

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _reply(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                proxy._record(self.path, status)  # before the client can see the answer
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                refusal = proxy._next_refusal(self.path)
                if refusal is not None:
                    message = {"error": {"message": "rate limit reached (scripted by the proxy)"}}
                    headers = {"Content-Type": "application/json"}
                    if refusal.retry_after is not None:
                        headers["Retry-After"] = refusal.retry_after
                    self._reply(refusal.status, json.dumps(message).encode(), headers)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_HEADERS}
                try:
                    answer = proxy._upstream.request(
                        self.command, self.path, content=body, headers=headers
                    )
                except httpx.HTTPError as exc:
                    self._reply(502, f"upstream failed: {exc!r}".encode(), {})
                    return
                kept = {
                    k: v
                    for k, v in answer.headers.items()
                    if k.lower() not in _HOP_HEADERS and k.lower() != "content-encoding"
                }
                self._reply(answer.status_code, answer.content, kept)

            do_GET = do_POST = _forward

        return Handler

    def start(self) -> ThrottlingProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._upstream.close()

    def __enter__(self) -> ThrottlingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
