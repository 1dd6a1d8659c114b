"""Fixtures: the stand-in server run by the real lifecycle code, on short socket paths."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from playsuite.inference import VLLMServer
from playsuite.testing.standin import standin_argv


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    """A short directory for sockets (pytest's tmp_path can exceed the 107-byte limit)."""
    path = Path(tempfile.mkdtemp(prefix="psi-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def standin(sock_dir: Path) -> Iterator[Callable[..., VLLMServer]]:
    """Start a stand-in server with the given options; every one is stopped at teardown."""
    servers: list[VLLMServer] = []

    def start(server_opts: dict | None = None, **standin_opts: object) -> VLLMServer:
        uds = str(sock_dir / f"s{len(servers)}.sock")
        opts = {"ready_timeout_s": 20.0, "poll_interval_s": 0.05, "stop_timeout_s": 5.0}
        opts.update(server_opts or {})
        server = VLLMServer(standin_argv(uds, **standin_opts), uds, **opts)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()
