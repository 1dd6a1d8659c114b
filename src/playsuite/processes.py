"""Child processes: ones that cannot outlive their parent, and short probes of other programs.

A node job that is killed with SIGKILL (Slurm preemption, ``kill -9``) gets no chance to clean
up; the kernel's parent-death signal does it instead. Pass :func:`die_with_parent` as
``preexec_fn`` (or call it first thing in a child) for every long-lived helper process.

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
from collections.abc import Mapping, Sequence

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask Linux to send ``sig`` to this process when its parent (thread) exits."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig))


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
