"""The real bubblewrap sandbox: what a process inside can and cannot reach."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from playsuite.sandbox import SandboxedProcess, game_policy, write_wrapper

PROBE = r"""
import json, os, socket, sys
out = {"uid": os.getuid(), "root": sorted(os.listdir("/")), "home": os.environ["HOME"]}
def attempt(name, fn):
    try:
        fn()
        out[name] = "allowed"
    except Exception as exc:
        out[name] = type(exc).__name__
attempt("write_game", lambda: open("/game/x", "w").write("x"))
attempt("write_usr", lambda: open("/usr/x", "w").write("x"))
attempt("read_secret", lambda: open(sys.argv[1]).read())
attempt("connect_host", lambda: socket.create_connection(("127.0.0.1", int(sys.argv[2])), 2))
attempt("dns", lambda: socket.getaddrinfo("deb.debian.org", 80))
attempt("write_home", lambda: open(os.path.expanduser("~/saved"), "w").write("x"))
out["interfaces"] = [n for _, n in socket.if_nameindex()]
print(json.dumps(out))
"""


def test_isolation(tmp_path: Path) -> None:
    game = tmp_path / "game"
    game.mkdir()
    (game / "probe.py").write_text(PROBE)
    secret = tmp_path / "other-run" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("not yours")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    policy = game_policy(tmp_path / "scratch", game)
    port = str(server.getsockname()[1])
    with SandboxedProcess(policy, ["/usr/bin/python3", "probe.py", str(secret), port]) as proc:
        out, _ = proc.popen.communicate(timeout=30)
    # A connection that reached the host would sit in the listen backlog.
    with pytest.raises(BlockingIOError):
        server.accept()
    server.close()
    result = json.loads(out)
    assert result["uid"] == 1000
    assert set(result["root"]) <= {
        "bin",
        "dev",
        "etc",
        "game",
        "lib",
        "lib32",
        "lib64",
        "proc",
        "sbin",
        "scratch",
        "tmp",
        "usr",
        "var",
    }
    assert result["write_game"] in ("OSError", "PermissionError")
    assert result["write_usr"] in ("OSError", "PermissionError")
    assert result["read_secret"] == "FileNotFoundError"
    assert result["connect_host"] in ("ConnectionRefusedError", "OSError")
    assert result["dns"] == "gaierror"
    assert result["write_home"] == "allowed"
    assert result["interfaces"] == ["lo"]
    assert (tmp_path / "scratch" / "home" / "saved").exists()
    assert not (game / "x").exists()


def test_escaped_children_are_reaped(tmp_path: Path) -> None:
    """A daemonised child (setsid + double fork) does not outlive the sandbox."""
    policy = game_policy(tmp_path / "scratch", None)
    script = "(setsid sh -c 'sleep 300' &) ; (sleep 300 &) ; echo started; sleep 300"
    proc = SandboxedProcess(policy, ["/bin/sh", "-c", script])
    assert proc.popen.stdout is not None
    assert proc.popen.stdout.readline().strip() == b"started"
    assert len(proc.alive_in_namespace()) >= 3
    proc.kill()
    assert proc.alive_in_namespace() == []
    assert proc.leftovers == []


def test_wrapper_script(tmp_path: Path) -> None:
    policy = game_policy(tmp_path / "scratch", None)
    wrapper = write_wrapper(tmp_path / "python-sandboxed", policy, "/usr/bin/python3")
    out = subprocess.run(
        [str(wrapper), "-c", "import os; print(os.getuid(), os.getcwd())"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert out.stdout.split() == ["1000", "/scratch"]
