"""Child processes: ones that cannot outlive their parent, and short probes of other programs.

A node job that is killed with SIGKILL (Slurm preemption, ``kill -9``) gets no chance to clean
up; the kernel's parent-death signal does it instead. Pass :func:`die_with_parent` as
``preexec_fn`` (or call it first thing in a child) for every long-lived helper process.

SIGTERM (Slurm's time limit, ``scancel``, ``kill``) kills a Python process without running its
``finally`` blocks; :func:`sigterm_raises` and :func:`raise_on_sigterm` turn it into the
:class:`Terminated` exception instead, so temporary folders and servers are cleaned up.

Asking an external program a question (is Slurm up, is this Debian package installed, which
version is this) goes through :func:`probe`: a program that is not installed, cannot be executed
or does not answer in time is an answer ("no"), not an exception, so a brand-new machine and a
node without the program behave like one where the program says no.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask Linux to send ``sig`` to this process when its parent (thread) exits."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig))


class Terminated(BaseException):
    """SIGTERM arrived. A ``BaseException``, like ``KeyboardInterrupt``: handlers written for
    ordinary errors (``except Exception``) let it through, ``finally`` blocks still run."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    # One SIGTERM is enough: a second one (Slurm signals every process of a job, and
    # multiprocessing terminates daemon children at exit) must not break off the cleanup.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated(f"terminated by signal {signum}")


def raise_on_sigterm() -> None:
    """From now on, SIGTERM raises :class:`Terminated` in this process's main thread."""
    signal.signal(signal.SIGTERM, _raise_terminated)


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` inside the block; the previous handler comes back
    after. Outside the main thread (where Python allows no handlers) this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def pid_alive(pid: int) -> bool:
    """True when a process ``pid`` exists on this machine (a zombie counts as gone).

    A process of another user counts as alive: we may not signal it, but it exists.
    """
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc: signal 0 said it exists


def group_alive(pgid: int) -> bool:
    """True while a process of process group ``pgid`` is alive (zombies count as gone)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text(encoding="ascii", errors="replace")
            state, _ppid, group = fields.rsplit(")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue  # the process ended while we looked
        if int(group) == pgid and state != "Z":
            return True
    return False


def wait_group_gone(pgid: int, timeout_s: float) -> bool:
    """Wait until no process of group ``pgid`` is alive; False if some still is at the timeout.

    SIGKILL is delivered asynchronously: right after ``killpg`` a helper may still be exiting
    (freeing a large mapping takes a moment), so a caller that promises "nothing left running"
    waits for it."""
    deadline = time.monotonic() + timeout_s
    while group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def probe(
    argv: Sequence[str],
    *,
    timeout_s: float = 30.0,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.CompletedProcess[str] | None:
    """Run ``argv`` to ask it something; its completed process, or ``None`` when the program is
    absent, not executable, or still running after ``timeout_s`` (then it is killed).

    The caller reads ``returncode`` and ``stdout``; ``None`` means "this machine cannot say".
    """
    try:
        return subprocess.run(
            [str(a) for a in argv],
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout_s,
            env=None if env is None else dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):  # FileNotFoundError, PermissionError, ENOEXEC
        return None


def probe_ok(argv: Sequence[str], *, timeout_s: float = 30.0) -> bool:
    """True when ``argv`` runs and exits 0 within ``timeout_s`` (see :func:`probe`)."""
    done = probe(argv, timeout_s=timeout_s)
    return done is not None and done.returncode == 0
