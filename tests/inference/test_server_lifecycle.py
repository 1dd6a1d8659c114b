"""VLLMServer runs a real server process: readiness, logs, stop escalation, restarts, signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from playsuite.inference import (
    ServerCrashed,
    ServerStartError,
    VLLMServer,
)
from playsuite.runtimes import procs
from playsuite.testing.standin import standin_argv


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still "exists": read its state
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _wait_gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_start_ready_log_and_stop(standin):
    server = standin()
    pid = server.pid
    assert server.running() and server.healthy()
    assert server.ready_s is not None and server.ready_s < 20
    assert os.path.exists(server.uds)
    code = server.stop()
    assert code is not None and not server.running()
    assert not _alive(pid) and not os.path.exists(server.uds)
    log = server.log_path.read_text()
    assert "=== playsuite: start 1" in log and "serving 'standin'" in log
    assert "standin: stopped" in log  # SIGTERM let it shut down cleanly
    assert server.stop() == code  # idempotent


def test_readiness_waits_for_a_slow_start(standin):
    server = standin(startup_delay_s=0.6)
    assert server.ready_s >= 0.6 and server.healthy()


def test_not_ready_before_deadline_is_an_error_and_kills_it(sock_dir):
    uds = str(sock_dir / "slow.sock")
    argv = standin_argv(uds, startup_delay_s=60)
    server = VLLMServer(argv, uds, ready_timeout_s=0.5, poll_interval_s=0.05, stop_timeout_s=5)
    with pytest.raises(ServerStartError, match=r"not ready after 0\.5 s") as err:
        server.start()
    assert "=== playsuite: start 1" in str(err.value)  # the log tail comes with the error
    assert _wait_gone(server.pid) and not os.path.exists(uds)


def test_exit_during_startup_reports_code_and_log(sock_dir):
    argv = [sys.executable, "-c", "import sys; print('no GPU found', flush=True); sys.exit(3)"]
    server = VLLMServer(argv, sock_dir / "x.sock", ready_timeout_s=20, poll_interval_s=0.05)
    with pytest.raises(ServerStartError, match="code 3") as err:
        server.start()
    assert "no GPU found" in str(err.value)


def test_missing_executable(sock_dir):
    server = VLLMServer(["/nonexistent/vllm", "serve"], sock_dir / "x.sock")
    with pytest.raises(ServerStartError, match="cannot run"):
        server.start()


def test_sigterm_ignored_escalates_to_sigkill(standin):
    server = standin({"stop_timeout_s": 0.5}, ignore_sigterm=True)
    started = time.monotonic()
    assert server.stop() == -signal.SIGKILL
    assert time.monotonic() - started < 5


def test_stop_reaches_the_whole_process_group(sock_dir):
    uds = sock_dir / "g.sock"
    pidfile = sock_dir / "child.pid"
    inner = " ".join(standin_argv(str(uds)))
    argv = ["sh", "-c", f"sleep 300 & echo $! > {pidfile}; exec {inner}"]
    with VLLMServer(argv, uds, ready_timeout_s=20, poll_interval_s=0.05, stop_timeout_s=5):
        child = int(pidfile.read_text())
        assert _alive(child)
    assert _wait_gone(child)


def test_stale_socket_is_replaced_and_live_one_refused(standin, sock_dir):
    stale = sock_dir / "s0.sock"
    stale.write_text("left over")
    server = standin()
    assert server.uds == str(stale) and server.healthy()
    clash = VLLMServer(standin_argv(server.uds), server.uds)
    with pytest.raises(ServerStartError, match="already listening"):
        clash.start()


def test_socket_path_too_long():
    with pytest.raises(ValueError, match="over Linux's limit"):
        VLLMServer(["true"], "/tmp/" + "d" * 120 + "/m.sock")


def test_killed_server_is_restarted_then_budget_runs_out(standin):
    server = standin({"max_restarts": 1})
    first = server.pid
    server.ensure_healthy()  # healthy: nothing to do
    assert server.restarts == 0
    os.kill(first, signal.SIGKILL)
    server._proc.wait()
    server.ensure_healthy()
    assert server.restarts == 1 and server.pid != first and server.healthy()
    assert "exited with code -9; restart 1" in server.log_path.read_text()
    os.kill(server.pid, signal.SIGKILL)
    server._proc.wait()
    with pytest.raises(ServerCrashed, match="budget"):
        server.ensure_healthy()
    assert not server.running()


def test_a_late_health_answer_is_not_a_hang(standin):
    """A busy server (here frozen by SIGSTOP for a moment) that misses a probe but answers within
    the hang window keeps running: a restart would lose every request in flight."""
    server = standin({"health_timeout_s": 0.3, "hang_after_s": 8.0, "max_restarts": 1})
    pid = server.pid
    os.kill(pid, signal.SIGSTOP)
    assert procs.await_stopped([pid], timeout_s=10.0)  # kill() returns before it has stopped
    threading.Timer(1.5, os.kill, args=(pid, signal.SIGCONT)).start()
    started = time.monotonic()
    server.ensure_healthy()
    assert 1.0 < time.monotonic() - started < 8.0
    assert server.restarts == 0 and server.pid == pid and server.healthy()


@pytest.mark.slow
def test_a_server_silent_for_the_whole_window_is_restarted(standin):
    server = standin({"health_timeout_s": 0.3, "hang_after_s": 1.0, "max_restarts": 1})
    first = server.pid
    os.kill(first, signal.SIGSTOP)
    assert procs.await_stopped([first], timeout_s=10.0)  # kill() returns before it has stopped
    server.ensure_healthy()
    assert server.restarts == 1 and server.pid != first and server.healthy()
    assert "not answering /health for 1 s (hung); restart 1" in server.log_path.read_text()
    assert _wait_gone(first)


_SCRIPT = """
import sys, time
from playsuite.inference import VLLMServer
from playsuite.testing.standin import standin_argv
uds = sys.argv[1]
server = VLLMServer(standin_argv(uds), uds, ready_timeout_s=20, poll_interval_s=0.05)
server.start()
print(server.pid, flush=True)
if sys.argv[2] == "sleep":
    time.sleep(60)
"""


@pytest.mark.parametrize(
    ("mode", "sig"),
    [
        ("sleep", signal.SIGTERM),
        ("sleep", signal.SIGINT),
        ("sleep", signal.SIGKILL),  # no handler runs: the parent-death signal does it
        ("exit", None),
    ],
)
def test_server_stops_when_owner_exits_or_is_signalled(sock_dir, mode, sig):
    script = sock_dir / "owner.py"
    script.write_text(textwrap.dedent(_SCRIPT))
    with subprocess.Popen(
        [sys.executable, str(script), str(sock_dir / "o.sock"), mode],
        stdout=subprocess.PIPE,
        text=True,
    ) as owner:
        pid = int(owner.stdout.readline())
        assert _alive(pid)
        if sig is not None:
            owner.send_signal(sig)
        code = owner.wait(timeout=20)
    assert _wait_gone(pid)
    if sig in (signal.SIGTERM, signal.SIGKILL):
        assert code == -sig  # the owner still dies of the signal it was sent
    elif sig is None:
        assert code == 0
    else:
        assert code != 0


def test_restart_from_a_short_lived_thread_survives_that_thread(standin):
    # Servers die with the thread that spawned them (parent-death signal): a restart made by a
    # worker thread that then ends must not take the new server down with it.
    server = standin({"max_restarts": 1})
    os.kill(server.pid, signal.SIGKILL)
    server._proc.wait()
    worker = threading.Thread(target=server.ensure_healthy)
    worker.start()
    worker.join()
    assert server.restarts == 1
    time.sleep(0.5)
    assert server.running() and server.healthy()
