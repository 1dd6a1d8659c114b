"""The harness's checks of pygame host messages: what the host sends passes, nothing else does.

The end-to-end cases (a game that forges messages through /proc/self/fd) are in
tests/sandbox/test_forged_protocol.py; these pin the rules message by message.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from playsuite.runtimes.base import RunStatus
from playsuite.runtimes.host_protocol import (
    MAX_HEADER_BYTES,
    MAX_SCREEN,
    Expected,
    ProtocolViolation,
    check_header,
    check_length,
    parse_header,
)

W, H = 320, 240
FRAME = W * H * 3
#: ``Host.launch_failed``: no screen, no frame count, no game time.
LAUNCH_FAILED = {"type": "exit", "code": None, "error": "blank", "launch": True, "payload": 0}


def status(kind: str, count: int, **fields: Any) -> dict[str, Any]:
    """A header as ``Host.status`` + ``Host.send`` write it."""
    header = {"type": kind, "t": 1.5, "clock": 1.5, "count": count, "width": W, "height": H}
    header.update(flips=3, probes={"score": 1}, payload=count * FRAME)
    header.update(fields)
    return header


@pytest.mark.parametrize(
    ("header", "expected", "payload"),
    [
        (status("ready", 1), Expected.launch(None), FRAME),
        (status("ready", 1), Expected.launch((W, H)), FRAME),
        (status("ready", 1), Expected.launch((W // 2, H // 2)), FRAME),  # a row's rough guess
        (
            status("ready", 1, width=5000, height=3000, payload=5000 * 3000 * 3),
            Expected.launch((5000, 3000)),
            5000 * 3000 * 3,
        ),
        (
            status("ready", 1, width=100, height=80, payload=100 * 80 * 3),
            Expected.launch(None),
            24000,
        ),
        (status("frames", 15), Expected.slice(15, (W, H)), 15 * FRAME),
        (status("frames", 4, stalled=True), Expected.slice(15, (W, H)), 4 * FRAME),  # watchdog
        (
            status("exit", 4, code=1, error="boom", launch=False),
            Expected.slice(15, (W, H)),
            4 * FRAME,
        ),
        (status("exit", 0, code=0, error=None, launch=True), Expected.launch(None), 0),
        (LAUNCH_FAILED, Expected.launch(None), 0),
    ],
)
def test_what_the_host_sends_is_accepted(header: dict, expected: Expected, payload: int) -> None:
    assert check_header(header, expected) == payload


@pytest.mark.parametrize(
    ("header", "expected", "why"),
    [
        (status("frames", 15), Expected.launch(None), "'frames' message where"),
        (status("ready", 1), Expected.slice(15, (W, H)), "'ready' message where"),
        (status("error", 0, error="unknown command"), Expected.slice(1, (W, H)), "'error'"),
        (status("ready", 2), Expected.launch(None), "2 frames"),
        (status("frames", 0, payload=0), Expected.slice(15, (W, H)), "0 frames"),
        (status("frames", 16), Expected.slice(15, (W, H)), "16 frames"),
        (status("frames", 16, stalled=True), Expected.slice(15, (W, H)), "16 frames"),
        (status("frames", 4, stalled=1), Expected.slice(15, (W, H)), "'stalled' flag"),
        (status("exit", 16, code=1), Expected.slice(15, (W, H)), "16 frames"),
        (
            status("ready", 1, width=10000, height=10000, payload=300_000_000),
            Expected.launch(None),
            "10000x10000 screen",
        ),
        (
            status("ready", 1, width=4000, height=150, payload=4000 * 150 * 3),
            Expected.launch((200, 150)),
            "at most 3840x2160",
        ),
        (status("ready", 1, width=0, payload=0), Expected.launch(None), "0x240"),
        (
            status("frames", 15, width=640, payload=15 * 640 * H * 3),
            Expected.slice(15, (W, H)),
            "640x240 frame",
        ),
        (status("ready", 1, payload=300_000_000), Expected.launch(None), "300000000-byte payload"),
        (status("frames", 15, payload=FRAME), Expected.slice(15, (W, H)), "byte payload"),
        (status("ready", 1, width="320"), Expected.launch(None), "width '320'"),
        ({**status("ready", 1), "count": True}, Expected.launch(None), "count True"),
        (status("ready", 1, t=float("nan")), Expected.launch(None), "game time"),
        (status("ready", 1, t=None), Expected.launch(None), "game time"),
        (status("ready", 1, probes=[1]), Expected.launch(None), "probes"),
        (status("exit", 0, code="1"), Expected.launch(None), "code '1'"),
        (status("exit", 0, error=["x"]), Expected.launch(None), "error is not text"),
    ],
)
def test_anything_else_is_a_violation(header: dict, expected: Expected, why: str) -> None:
    with pytest.raises(ProtocolViolation, match=why) as info:
        check_header(header, expected)
    assert info.value.status == RunStatus.SANDBOX_VIOLATION


def test_headers_are_bounded_and_must_be_objects() -> None:
    check_length(200)
    for length in (0, MAX_HEADER_BYTES + 1, 0xFFFFFFFF):
        with pytest.raises(ProtocolViolation, match="byte header"):
            check_length(length)
    assert parse_header(json.dumps(status("ready", 1)).encode())["type"] == "ready"
    for data in (b"\xff{", b"[1, 2]", b"[" * 100_000 + b"]" * 100_000):
        with pytest.raises(ProtocolViolation, match="header"):
            parse_header(data)


def test_a_screen_is_bounded_even_when_the_row_gives_none() -> None:
    w, h = MAX_SCREEN
    check_header(status("ready", 1, width=w, height=h, payload=w * h * 3), Expected.launch(None))
    with pytest.raises(ProtocolViolation):
        big = status("ready", 1, width=w + 1, height=h, payload=(w + 1) * h * 3)
        check_header(big, Expected.launch(None))
