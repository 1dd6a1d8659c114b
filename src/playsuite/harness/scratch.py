"""A node job's temporary folders, named after the process that owns them.

A play job keeps two kinds of folder under ``$TMPDIR``: the model server's socket folder
(``kind`` ``model``) and one scratch folder per game worker (``w0``, ``w1``, ...: the games'
working directories, a browser's and Mesa's caches). The job removes them when it ends normally,
on SIGTERM and when a worker dies; nothing can run after ``kill -9``. So every folder carries its
owner's pid in its name (``playsuite-model-pid1234-abcd1234``) and, in a ``.owner`` file, the host
and the pid namespace that pid belongs to; the next job on the machine removes the folders whose
owner is no longer alive (:func:`sweep_stale_tempdirs`).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from playsuite.processes import pid_alive

OWNER_FILE = ".owner"
_KIND = re.compile(r"^(model|w\d+)$")
_NAME = re.compile(r"^playsuite-(?P<kind>model|w\d+)-pid(?P<pid>\d+)-[a-z0-9_]+$")


def _pid_namespace() -> str:
    """This process's pid namespace: pids of another one (a container sharing /tmp) mean
    nothing here, so their folders are never judged from here."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return "unknown"


def owned_tempdir(kind: str, owner_pid: int | None = None) -> Path:
    """A new private folder under ``$TMPDIR`` owned by ``owner_pid`` (default: this process).

    Short on purpose: the model socket lives in it, and Unix socket paths are limited to 108
    bytes.
    """
    if not _KIND.match(kind):
        raise ValueError(f"temporary folder kind must be 'model' or 'w<N>', got {kind!r}")
    pid = os.getpid() if owner_pid is None else owner_pid
    path = Path(tempfile.mkdtemp(prefix=f"playsuite-{kind}-pid{pid}-"))
    owner = f"{socket.gethostname()} {_pid_namespace()} {pid}\n"
    (path / OWNER_FILE).write_text(owner, encoding="utf-8")
    return path


def owner_of(path: Path) -> tuple[str | None, int] | None:
    """``(where, pid)`` of a job folder: ``where`` is ``"HOST PIDNS"`` from its ``.owner`` file,
    ``None`` when that file is missing (the job died between creating the folder and writing it).
    ``None`` for folders not made by :func:`owned_tempdir`."""
    match = _NAME.match(path.name)
    if match is None:
        return None
    try:
        where = " ".join((path / OWNER_FILE).read_text(encoding="utf-8").split()[:2])
    except OSError:
        where = None
    return where, int(match["pid"])


def stale_tempdirs(root: Path | None = None) -> list[Path]:
    """Job folders of this user under ``root`` (``$TMPDIR``) whose owner is dead on this host.

    A folder that names another host or pid namespace is left alone: ``$TMPDIR`` may be shared,
    and a pid means nothing on another machine or in another container.
    """
    base = Path(root or tempfile.gettempdir())
    here = f"{socket.gethostname()} {_pid_namespace()}"
    stale = []
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return []
    for entry in entries:
        owner = owner_of(entry)
        if owner is None:
            continue
        where, pid = owner
        try:
            mine = entry.is_dir() and not entry.is_symlink() and entry.stat().st_uid == os.getuid()
        except OSError:
            continue
        if mine and where in (None, here) and pid != os.getpid() and not pid_alive(pid):
            stale.append(entry)
    return stale


def sweep_stale_tempdirs(root: Path | None = None) -> list[Path]:
    """Remove what killed jobs left under ``$TMPDIR`` (see :func:`stale_tempdirs`)."""
    removed = stale_tempdirs(root)
    for path in removed:
        shutil.rmtree(path, ignore_errors=True)
    if removed:
        names = ", ".join(p.name for p in removed)
        print(f"removed temporary folders of killed jobs: {names}", file=sys.stderr)
    return removed
