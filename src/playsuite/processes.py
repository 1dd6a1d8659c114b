"""Child processes that cannot outlive the process that started them.

A node job that is killed with SIGKILL (Slurm preemption, ``kill -9``) gets no chance to clean
up; the kernel's parent-death signal does it instead. Pass :func:`die_with_parent` as
``preexec_fn`` (or call it first thing in a child) for every long-lived helper process.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask Linux to send ``sig`` to this process when its parent (thread) exits."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig))
