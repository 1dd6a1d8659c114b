"""Model server lifecycle: start, wait for readiness, watch, restart on crash, stop.

One cluster job serves one model to many game workers (DESIGN.md §4). :class:`VLLMServer` owns
that server process: it runs any argv (``vllm serve ... --uds PATH`` on a GPU node, the stand-in
in tests), captures its output to a log file, declares it ready only when ``GET /health`` over
the Unix socket answers 200, and stops it — SIGTERM to its whole process group, SIGKILL after a
grace period — when the job ends normally, exits through an exception, or is sent SIGTERM/SIGINT
(Slurm's and Snakemake's way of cancelling). vLLM starts helper processes (engine core, tensor
parallel workers); the process group makes sure none of them outlives the job and keeps GPUs.

A server that dies or stops answering while serving is restarted, a bounded number of times, by
:meth:`VLLMServer.ensure_healthy`, which the client calls when a request cannot connect or times
out; several workers hitting the failure together cause a single restart.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import shlex
import signal
import socket
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import httpx

from playsuite.inference.command import server_env, vllm_serve_argv
from playsuite.inference.deadline_http import DeadlineHTTP
from playsuite.inference.engine import DEFAULT_VLLM, EngineUnavailable, resolve_vllm
from playsuite.processes import die_with_parent, wait_group_gone

#: Linux's limit on a Unix socket path (``sun_path`` is 108 bytes including the final NUL).
MAX_UDS_PATH_BYTES = 107
#: Seconds stop() waits for the killed process group to be gone.
GROUP_EXIT_WAIT_S = 10.0


class ServerError(RuntimeError):
    """The model server cannot be used."""


class ServerStartError(ServerError):
    """The server exited during startup or was not ready before the deadline."""


class ServerCrashed(ServerError):
    """The server died or hung while serving, and its restart budget is spent."""


def check_uds_path(uds: str | os.PathLike[str]) -> str:
    """Return ``uds`` as a string, or raise if Linux cannot bind a socket at that path."""
    path = os.fspath(uds)
    if len(os.fsencode(path)) > MAX_UDS_PATH_BYTES:
        raise ValueError(
            f"Unix socket path is {len(os.fsencode(path))} bytes, over Linux's limit of "
            f"{MAX_UDS_PATH_BYTES}: {path!r}; use a shorter directory (e.g. $TMPDIR or /tmp)"
        )
    return path


def _socket_is_live(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def tail(path: str | os.PathLike[str], lines: int = 30) -> str:
    """The last ``lines`` lines of a log file (empty if it does not exist)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 64 * 1024))
            data = fh.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


# --- stopping every live server on exit and on signals ---------------------------------------

_LIVE: weakref.WeakSet[VLLMServer] = weakref.WeakSet()
_HANDLERS_LOCK = threading.Lock()
_HANDLERS_INSTALLED = False


def stop_all_servers() -> None:
    """Stop every server this process started that is still running."""
    for server in list(_LIVE):
        with contextlib.suppress(Exception):
            server.stop()


def _on_signal(signum: int, frame: Any, previous: Any) -> None:
    stop_all_servers()
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_IGN:
        return
    else:  # default action: die of the same signal, so the parent sees the real cause
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def _install_exit_handlers() -> None:
    """atexit always; SIGTERM/SIGINT handlers when called from the main thread (Python's rule)."""
    global _HANDLERS_INSTALLED
    with _HANDLERS_LOCK:
        if _HANDLERS_INSTALLED:
            return
        atexit.register(stop_all_servers)
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGTERM, signal.SIGINT):
                previous = signal.getsignal(signum)
                signal.signal(signum, lambda s, f, previous=previous: _on_signal(s, f, previous))
        _HANDLERS_INSTALLED = True


# --- spawning ----------------------------------------------------------------------------------

_spawn_queue: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
_spawner_lock = threading.Lock()
_spawner: list[threading.Thread] = []


def _spawner_loop() -> None:
    while True:
        task, future = _spawn_queue.get()
        try:
            future.set_result(task())
        except BaseException as exc:
            future.set_exception(exc)


def _spawn_from_long_lived_thread(task: Callable[[], Any]) -> Any:
    """Run ``task`` (a ``Popen``) on one daemon thread that lives as long as the process.

    Linux delivers the parent-death signal (``die_with_parent``) when the *thread* that forked the
    child exits, not the process. Restarts are made by whichever thread notices the crash (a game
    worker, the judge's pool, a monitor); forking from that thread would tie the new server's
    life to it. A daemon thread ends only with the process, after the ``atexit`` stop.
    """
    with _spawner_lock:
        if not _spawner or not _spawner[0].is_alive():
            thread = threading.Thread(
                target=_spawner_loop, name="model-server-spawner", daemon=True
            )
            thread.start()
            _spawner[:] = [thread]
    future: Future[Any] = Future()
    _spawn_queue.put((task, future))
    return future.result()


# --- the lifecycle ------------------------------------------------------------------------------


class VLLMServer:
    """One model server process listening on a Unix socket.

    ``argv`` is any command that serves the OpenAI API on ``uds`` (build it with
    :func:`~playsuite.inference.command.vllm_serve_argv`, or use :meth:`for_preset`). Output goes
    to ``log_path`` (appended across restarts, each start marked). ``ready_timeout_s`` bounds a
    start: loading a large model from a network file system can take many minutes, hence the
    generous default. ``max_restarts`` bounds how often a crashed or hung server is restarted
    over the object's lifetime.
    """

    def __init__(
        self,
        argv: Sequence[str],
        uds: str | os.PathLike[str],
        *,
        log_path: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        ready_timeout_s: float = 1800.0,
        poll_interval_s: float = 0.5,
        health_timeout_s: float = 10.0,
        hang_after_s: float = 60.0,
        stop_timeout_s: float = 30.0,
        max_restarts: int = 2,
    ) -> None:
        if not argv:
            raise ValueError("argv is empty")
        if max_restarts < 0:
            raise ValueError("max_restarts must be >= 0")
        self.argv = [str(a) for a in argv]
        self.uds = check_uds_path(uds)
        self.log_path = Path(log_path) if log_path else Path(f"{self.uds}.log")
        self.env = dict(os.environ if env is None else env)
        self.cwd = cwd
        self.ready_timeout_s = ready_timeout_s
        self.poll_interval_s = poll_interval_s
        self.health_timeout_s = health_timeout_s
        self.hang_after_s = hang_after_s
        self.stop_timeout_s = stop_timeout_s
        self.max_restarts = max_restarts
        self.restarts = 0
        self.starts = 0
        self.ready_s: float | None = None  # seconds the last start took to become ready
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.RLock()
        self._closed = False
        self._http = DeadlineHTTP(uds=self.uds, max_connections=2)

    @classmethod
    def for_preset(
        cls,
        preset: Any,
        uds: str | os.PathLike[str],
        *,
        vllm: str = DEFAULT_VLLM,
        model: str | None = None,
        allowed_local_media_path: str | None = None,
        **kwargs: Any,
    ) -> VLLMServer:
        """A server for a registry preset or judge, served under the preset's name, with the
        preset's ``serve.env`` (its ``{scratch}`` is a folder beside the socket)."""
        try:
            vllm = resolve_vllm(vllm)
        except EngineUnavailable as exc:
            raise ServerStartError(str(exc)) from None
        argv = vllm_serve_argv(
            preset,
            os.fspath(uds),
            vllm=vllm,
            model=model,
            allowed_local_media_path=allowed_local_media_path,
        )
        scratch = Path(os.fspath(uds)).parent / f"{preset.name}-scratch"
        extra_env = server_env(preset, os.fspath(scratch))
        if extra_env:
            scratch.mkdir(parents=True, exist_ok=True)
            kwargs["env"] = {**(kwargs.get("env") or os.environ), **extra_env}
        return cls(argv, uds, **kwargs)

    # -- state ----------------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def returncode(self) -> int | None:
        return self._proc.poll() if self._proc else None

    def running(self) -> bool:
        """True while the server process is alive (ready or not)."""
        return self._proc is not None and self._proc.poll() is None

    def healthy(self, timeout_s: float | None = None) -> bool:
        """True if ``GET /health`` answers 200 within ``timeout_s``."""
        # A plain connect first: cheap, and it spares httpcore's failed connect, which leaks its
        # socket (a ResourceWarning per poll while a model loads).
        if self._closed or not _socket_is_live(self.uds):
            return False
        try:
            response = self._http.get("/health", timeout_s=timeout_s or self.health_timeout_s)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    def version(self, timeout_s: float = 10.0) -> str | None:
        """The engine version the running server reports (vLLM's ``GET /version``), or None when
        it reports none: what served an episode, not what is installed where the job started."""
        if self._closed or not _socket_is_live(self.uds):
            return None
        try:
            response = self._http.get("/version", timeout_s=timeout_s)
            value = response.json().get("version") if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            return None
        return str(value) if value else None

    def log_tail(self, lines: int = 30) -> str:
        return tail(self.log_path, lines)

    # -- start ----------------------------------------------------------------------------------

    def start(self) -> VLLMServer:
        """Start the server and block until it is ready (or raise :class:`ServerStartError`)."""
        with self._lock:
            if self._closed:
                raise ServerError("this server was stopped; create a new one")
            if self.running():
                return self
            self._wait_ready(self._spawn())
        return self

    def _spawn(self) -> float:
        """Launch the server process; returns the launch's ``time.monotonic()``."""
        if self._closed:
            raise ServerError("the server was stopped")
        if os.path.exists(self.uds):
            if _socket_is_live(self.uds):
                raise ServerStartError(f"another server is already listening on {self.uds}")
            os.unlink(self.uds)  # left behind by a killed server
        Path(self.uds).parent.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        launched = time.monotonic()
        with open(self.log_path, "ab") as log:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            header = f"=== playsuite: start {self.starts} at {stamp}: {shlex.join(self.argv)}\n"
            log.write(header.encode())
            log.flush()
            _install_exit_handlers()
            try:
                self._proc = _spawn_from_long_lived_thread(
                    lambda: subprocess.Popen(
                        self.argv,
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        env=self.env,
                        cwd=self.cwd,
                        # Its own process group, so stop() reaches every child, but not its
                        # own session: see docs/inference.md, "Deadlines" (CPU share).
                        process_group=0,
                        preexec_fn=die_with_parent,  # and a killed node job takes its server along
                    )
                )
            except OSError as exc:
                raise ServerStartError(f"cannot run {self.argv[0]!r}: {exc}") from exc
        _LIVE.add(self)
        return launched

    def _wait_ready(self, started: float) -> None:
        """Wait for health. ``ready_s`` counts from ``started``, the launch: a parent
        descheduled before its first check must not report a start shorter than it was."""
        assert self._proc is not None
        deadline = started + self.ready_timeout_s
        while True:
            if self._closed:
                self._terminate()
                raise ServerError("the server was stopped while starting")
            code = self._proc.poll()
            if code is not None:
                self._kill_group()
                raise ServerStartError(
                    f"server exited with code {code} while starting; log {self.log_path}:\n"
                    f"{self.log_tail()}"
                )
            remaining = deadline - time.monotonic()
            if self.healthy(timeout_s=max(0.1, min(self.health_timeout_s, remaining))):
                self.ready_s = time.monotonic() - started
                return
            if time.monotonic() >= deadline:
                self._terminate()
                raise ServerStartError(
                    f"server not ready after {self.ready_timeout_s:g} s; log {self.log_path}:\n"
                    f"{self.log_tail()}"
                )
            time.sleep(min(self.poll_interval_s, max(0.0, deadline - time.monotonic())))

    # -- crash detection and restart ------------------------------------------------------------

    def ensure_healthy(self) -> None:
        """Make sure the server answers; restart it if it died or hung, within the budget.

        Safe to call from many threads at once: the first caller restarts, the others wait on
        the lock and then find a healthy server.
        """
        with self._lock:
            if self._closed:
                raise ServerError("the server was stopped")
            if self._proc is None:
                raise ServerError("the server was never started")
            code = self._proc.poll()
            if code is None:
                if self._answers_within_hang_window():
                    return
                code = self._proc.poll()
            if code is None:
                reason = f"not answering /health for {self.hang_after_s:g} s (hung)"
            else:
                reason = f"exited with code {code}"
            self._restart(reason)

    def _answers_within_hang_window(self) -> bool:
        """Probe ``/health`` until it answers or ``hang_after_s`` has passed since the first miss.

        One missed probe is not a hang: a CPU-bound server on a loaded node (the CPU build on a
        shared core) can answer late while it is busy, and restarting it would throw away every
        request in flight. Only a server silent for the whole window, or one that exits, is
        restarted.
        """
        deadline = time.monotonic() + self.hang_after_s
        while True:
            remaining = deadline - time.monotonic()
            if self.healthy(timeout_s=max(0.1, min(self.health_timeout_s, remaining))):
                return True
            if self._proc is None or self._proc.poll() is not None:
                return False
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(self.poll_interval_s, max(0.0, deadline - time.monotonic())))

    def _restart(self, reason: str) -> None:
        if self.restarts >= self.max_restarts:
            log_tail = self.log_tail()
            self.stop()
            raise ServerCrashed(
                f"server {reason}; restart budget ({self.max_restarts}) spent; "
                f"log {self.log_path}:\n{log_tail}"
            )
        self.restarts += 1
        with open(self.log_path, "ab") as log:
            log.write(f"=== playsuite: server {reason}; restart {self.restarts}\n".encode())
        self._terminate()
        self._wait_ready(self._spawn())

    # -- stop -----------------------------------------------------------------------------------

    def _kill_group(self, sig: int = signal.SIGKILL) -> None:
        if self._proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, sig)

    def _terminate(self) -> None:
        """SIGTERM the process group, SIGKILL it after ``stop_timeout_s``, reap, tidy the socket."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            self._kill_group(signal.SIGTERM)
            try:
                proc.wait(timeout=self.stop_timeout_s)
            except subprocess.TimeoutExpired:
                self._kill_group(signal.SIGKILL)
                proc.wait()
        self._kill_group(signal.SIGKILL)  # helpers that outlived the main process
        # SIGKILL lands asynchronously: give the helpers a moment to be gone before saying
        # "stopped" (a process stuck in the kernel cannot be hurried; stop() does not wait on it
        # for ever).
        wait_group_gone(proc.pid, GROUP_EXIT_WAIT_S)
        if os.path.exists(self.uds) and not _socket_is_live(self.uds):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.uds)

    def stop(self) -> int | None:
        """Stop the server (idempotent); return its exit status.

        The process is signalled before taking the lock, so a stop from a signal handler is not
        held up by another thread waiting for a restart to become ready.
        """
        self._closed = True
        self._terminate()
        with self._lock:
            self._terminate()  # a process a concurrent restart spawned meanwhile
            _LIVE.discard(self)
            self._http.close()
            return self._proc.returncode if self._proc else None

    def __enter__(self) -> VLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
