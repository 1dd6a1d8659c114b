"""Fixtures shared by the catalog tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from playsuite.inference import VLLMServer
from playsuite.testing.standin import standin_argv


@pytest.fixture
def standin_llm() -> Iterator[Callable[..., VLLMServer]]:
    """Start stand-in model servers (a test double speaking vLLM's protocol) on short socket
    paths: ``start(model, **standin options)``; every one is stopped after the test."""
    folder = Path(tempfile.mkdtemp(prefix="psc-", dir="/tmp"))  # short socket path
    started: list[VLLMServer] = []

    def start(model: str, **opts) -> VLLMServer:
        uds = str(folder / f"s{len(started)}.sock")
        srv = VLLMServer(
            standin_argv(uds, model=model, **opts),
            uds,
            ready_timeout_s=20.0,
            poll_interval_s=0.05,
            stop_timeout_s=5.0,
        )
        started.append(srv)
        return srv.start()

    yield start
    for srv in started:
        srv.stop()
    shutil.rmtree(folder, ignore_errors=True)
