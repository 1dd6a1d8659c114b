"""Process trees: find, pause and kill every process a game started.

A game can fork helpers, and a sandbox (bubblewrap with its own PID namespace, ``--new-session``)
can put them in another process group or session, so signalling one group is not enough. These
helpers read the parent links in ``/proc`` (host PIDs, visible from outside any namespace) and act
on the whole tree.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path


def _parents() -> dict[int, int]:
    """pid -> ppid for every process visible now."""
    out: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # exited while we looked
            continue
        # The command name is in parentheses and may hold spaces: split after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        out[int(entry.name)] = int(fields[1])
    return out


def descendants(pid: int) -> list[int]:
    """All live descendants of ``pid`` (not ``pid`` itself), parents before children."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    out: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop(0)
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants, when ``pid`` is still alive."""
    return ([pid] if alive(pid) else []) + descendants(pid)


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] != "Z"


def await_stopped(pids: list[int], timeout_s: float = 1.0) -> bool:
    """Wait until every thread of ``pids`` is stopped (or gone) after a SIGSTOP; False if some
    still ran after ``timeout_s``.

    A signal takes effect when its target is next scheduled, which on a busy machine can be
    milliseconds later: until then the game still runs, so a clock that hides the stop must
    count it from here, never from the moment the signal was sent.
    """
    deadline = time.monotonic() + timeout_s
    waiting = list(pids)
    while waiting:
        waiting = [p for p in waiting if _running_threads(p)]
        if not waiting:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def _running_threads(pid: int) -> bool:
    """Does any thread of ``pid`` still run (state other than stopped, traced, zombie, dead)?"""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    for task in tasks:
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rfind(")") + 2 :].split()[0] not in ("T", "t", "Z", "X"):
            return True
    return False


def cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def signal_all(pids: list[int], sig: int) -> None:
    """Send ``sig`` to each pid, ignoring those that already exited."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def kill_tree(pid: int, grace_s: float = 2.0) -> None:
    """SIGCONT + SIGTERM the tree of ``pid``, then SIGKILL whatever is left after ``grace_s``.

    SIGCONT first: a stopped process does not act on SIGTERM. The tree is re-read before SIGKILL
    so children forked during the grace period are caught too. The caller still reaps ``pid``
    (``Popen.wait``) since only the parent can.
    """
    pids = tree(pid)
    signal_all(pids, signal.SIGCONT)
    signal_all(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.02)
    signal_all(pids + [p for p in tree(pid) if p not in pids], signal.SIGKILL)
