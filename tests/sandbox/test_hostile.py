"""A hostile game inside the real sandbox: every escape attempt fails, the run ends cleanly."""

from __future__ import annotations

import json
import random
import socket
from pathlib import Path

import pytest

from playsuite.actions import Key
from playsuite.runtimes.factory import make_runtime
from tests.runtimes.conftest import fixture_game


def _with_marker(marker: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if marker.encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def test_hostile_game_is_contained(acquired, run_options, tmp_path: Path) -> None:
    other_run = tmp_path / "other-run"
    other_run.mkdir()
    (other_run / "secret.txt").write_text("another run's data")
    escape = tmp_path / "escaped.txt"
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    marker = f"{random.randint(100000, 999999)}.{random.randint(100, 999)}"
    game = fixture_game(
        "hostile_game",
        args=(
            "--escape",
            str(escape),
            "--peek",
            str(other_run / "secret.txt"),
            "--port",
            str(server.getsockname()[1]),
            "--listen",
            "18777",
            "--marker",
            marker,
        ),
    )
    files = acquired(game).files
    rt = make_runtime(game, run_options(acquired(game)))
    try:
        first = rt.start()
        frames = rt.act([Key(("a",))], 0.5)
        assert not (frames[-1] == first.frame).all()  # it still plays and reacts
        assert _with_marker(marker)  # its children are running inside the sandbox
        # The game's port is in its own network namespace: the host cannot reach it.
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", 18777), timeout=1).close()
    finally:
        rt.close()
    report = json.loads((rt.options.workdir / "sandbox" / "home" / "hostile.json").read_text())
    for attempt in (
        "write_escape",
        "write_game_files",
        "write_usr",
        "read_other_run",
        "list_other_run",
        "connect_host",
        "resolve_name",
        "connect_internet",
        "nested_userns",
        "unshare_command",
    ):
        assert report[attempt].startswith("failed"), (attempt, report[attempt])
    assert not escape.exists() and not (files / "pwned").exists()
    with pytest.raises(BlockingIOError):
        server.accept()  # nothing from inside reached the host's listening socket
    server.close()
    # Children that tried to outlive the game (one in its own session) are gone with it.
    assert report["spawn_daemon"].startswith("succeeded")
    assert _with_marker(marker) == []
    assert rt.leftovers == []
