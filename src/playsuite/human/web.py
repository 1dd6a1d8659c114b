"""The small HTTP server under the play and rating pages (standard library only).

Bound to 127.0.0.1 and nothing else: the pages drive a sandboxed game and write study files,
so they are for the person at this machine (or one who reaches it through an SSH tunnel). Each
server also makes a random session token, part of the address it prints, and refuses every
request without it, so another local user or a web page that guesses the port cannot play or
rate in someone's name.

A page is a file of ``playsuite/human/pages``; routes are ``(method, path) -> handler``, where
a handler takes the request (its query and JSON body) and returns a :class:`Reply`.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

#: The only interface the servers listen on.
HOST = "127.0.0.1"
#: Largest request body accepted (a step's actions, a rating): anything bigger is refused.
MAX_BODY = 256 * 1024


@dataclass
class Request:
    """One request: ``query`` (first value of each parameter), the JSON ``body`` (or None) and
    the ``Range`` header (a video element's seek; empty when absent)."""

    path: str
    query: dict[str, str]
    body: Any = None
    range: str = ""


@dataclass
class Reply:
    """What a handler answers: a status, a body and its type, and extra headers."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, obj: Any, status: int = 200) -> Reply:
        return cls(status, json.dumps(obj).encode())

    @classmethod
    def error(cls, message: str, status: int = 400) -> Reply:
        return cls.json({"error": message}, status)


Handler = Callable[[Request], Reply]


def page(name: str) -> bytes:
    """A page of ``playsuite/human/pages`` as bytes."""
    return resources.files("playsuite.human").joinpath("pages", name).read_bytes()


def file_reply(path: Path, content_type: str, range_header: str | None) -> Reply:
    """``path`` whole, or the byte range asked for (a video element seeks with ranges)."""
    size = path.stat().st_size
    match = re.fullmatch(r"bytes=(\d*)-(\d*)", range_header or "")
    with open(path, "rb") as fh:
        if not match or not (match[1] or match[2]):
            return Reply(200, fh.read(), content_type, {"Accept-Ranges": "bytes"})
        if match[1]:
            start = int(match[1])
            end = min(int(match[2]) if match[2] else size - 1, size - 1)
        else:  # the last N bytes
            start, end = max(0, size - int(match[2])), size - 1
        if start > end or start >= size:
            return Reply(416, b"", content_type, {"Content-Range": f"bytes */{size}"})
        fh.seek(start)
        body = fh.read(end - start + 1)
    headers = {"Accept-Ranges": "bytes", "Content-Range": f"bytes {start}-{end}/{size}"}
    return Reply(206, body, content_type, headers)


class PageServer:
    """``PageServer(routes, port)``: serves ``routes`` on 127.0.0.1 in a background thread.

    ``url`` is the address to open (with the session token); ``stop()`` shuts it down. Handler
    errors become a 500 with the message, never a dead server.
    """

    def __init__(self, routes: Mapping[tuple[str, str], Handler], port: int = 0) -> None:
        self.routes = dict(routes)
        self.token = secrets.token_urlsafe(16)
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the pages poll: a line per request would drown the console

            def do_GET(self) -> None:
                server._serve(self, "GET")

            def do_POST(self) -> None:
                server._serve(self, "POST")

        self._httpd = ThreadingHTTPServer((HOST, port), _Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def start(self) -> PageServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> PageServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self, http: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(http.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        reply = self._reply(http, method, parts.path, query)
        try:
            http.send_response(reply.status)
            http.send_header("Content-Type", reply.content_type)
            http.send_header("Content-Length", str(len(reply.body)))
            http.send_header("Cache-Control", "no-store")
            for key, value in reply.headers.items():
                http.send_header(key, value)
            http.end_headers()
            http.wfile.write(reply.body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the page went away (reloaded, closed): nothing to answer

    def _reply(
        self, http: BaseHTTPRequestHandler, method: str, path: str, query: dict[str, str]
    ) -> Reply:
        token = query.pop("token", None) or http.headers.get("X-Session-Token")
        if not token or not secrets.compare_digest(token, self.token):
            return Reply.error("missing or wrong session token (open the address printed)", 403)
        handler = self.routes.get((method, path))
        if handler is None:
            handler = self.routes.get((method, path.rsplit("/", 1)[0] + "/*"))
        if handler is None:
            return Reply.error(f"no such page: {method} {path}", 404)
        body = None
        if method == "POST":
            length = int(http.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return Reply.error("request too large", 413)
            raw = http.rfile.read(length)
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                return Reply.error("the request body is not JSON")
        request = Request(path, query, body, http.headers.get("Range") or "")
        try:
            return handler(request)
        except Exception as exc:  # a bug: the page shows it and the server keeps serving
            return Reply.error(f"{type(exc).__name__}: {exc}", 500)
