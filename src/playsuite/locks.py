"""Exclusive kernel locks a process holds for as long as it works on something: a play job on
its shard, an agreement job on its table, an acquisition on its game's folder.

The first user, and why it is built this way: one live job per shard.

Snakemake's own lock does not survive ``kill -9`` of snakemake: the play job it started keeps
running as an orphan, and after ``snakemake --unlock`` a second job for the same shard would play
the same games into the same folders. The play job therefore takes a kernel lock (``flock``) on a
file beside its shard manifest before it looks at any episode. The kernel drops the lock when the
holder's last descriptor closes, so a job that dies in any way (``kill -9`` included) frees its
shard without anyone cleaning up, and a lock that is held always has a live holder. The file
names that holder (pid, host, start time) so that a job refused the shard can say who has it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

#: How often a job waiting for a busy shard tries again.
LOCK_POLL_S = 1.0


@dataclass(frozen=True)
class LockOwner:
    """Who holds a lock: written into the lock file by the holder."""

    pid: int
    host: str
    since: str  # ISO 8601, UTC

    def describe(self) -> str:
        return f"pid {self.pid} on host {self.host} (since {self.since})"


class ShardBusy(RuntimeError):
    """The shard is locked by a live job (after waiting as long as the settings allow)."""

    def __init__(self, lock_path: Path, owner: LockOwner | None, waited_s: float) -> None:
        self.lock_path = lock_path
        self.owner = owner
        holder = owner.describe() if owner is not None else "a process that has not named itself"
        super().__init__(
            f"{lock_path} is held by {holder}, which is still playing this shard "
            f"(waited {waited_s:g} s, setting play.lock_wait_s). Stop that job or let it finish; "
            "a job that dies releases the lock by itself"
        )


def lock_path_for(target: Path) -> Path:
    """The lock file of a shard manifest (or an episode folder): ``NAME.lock`` beside it."""
    return target.with_name(f"{target.name}.lock")


def read_owner(lock_path: Path) -> LockOwner | None:
    """The holder named in ``lock_path``; ``None`` when the file is empty or unreadable."""
    try:
        data = json.loads(lock_path.read_text(encoding="utf-8") or "null")
        return LockOwner(int(data["pid"]), str(data["host"]), str(data["since"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def is_locked(lock_path: Path) -> bool:
    """True when some process holds ``lock_path`` now (a test and a diagnosis helper)."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CLOEXEC)  # NFS: exclusive locks need write
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing also drops the lock this probe may have taken
    return False


def _try_flock(fd: int) -> bool | None:
    """Take the lock without blocking: True taken, False held by another, None unsupported."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:
        if exc.errno in (errno.ENOLCK, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
            return None
        raise
    return True


def _wait_for_lock(fd: int, lock_path: Path, wait_s: float, poll_s: float) -> bool:
    """Block until the lock is ours or ``wait_s`` has passed (then :class:`ShardBusy`).

    Returns False where the file system has no locks at all (some parallel file systems mounted
    without them): the job then goes on unlocked, with a warning, rather than never running.
    """
    started = time.monotonic()
    announced = False
    while True:
        taken = _try_flock(fd)
        if taken is None:
            print(
                f"warning: {lock_path}: this file system does not support locks; "
                "nothing stops a second job from playing this shard at the same time",
                file=sys.stderr,
            )
            return False
        if taken:
            return True
        waited = time.monotonic() - started
        owner = read_owner(lock_path)
        if waited >= wait_s:
            raise ShardBusy(lock_path, owner, wait_s)
        if not announced:
            holder = owner.describe() if owner else "another process"
            print(f"{lock_path} is held by {holder}; waiting up to {wait_s:g} s", file=sys.stderr)
            announced = True
        time.sleep(min(poll_s, wait_s - waited))


@contextlib.contextmanager
def exclusive_lock(
    lock_path: Path, wait_s: float = 0.0, poll_s: float = LOCK_POLL_S
) -> Iterator[LockOwner]:
    """Hold ``lock_path`` for the block, waiting at most ``wait_s`` for a live holder to leave.

    The descriptor is not inheritable, so helper processes (workers, the model server, games)
    never keep the lock alive after the job itself is gone.
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        locked = _wait_for_lock(fd, lock_path, wait_s, poll_s)
        me = LockOwner(
            pid=os.getpid(),
            host=socket.gethostname(),
            since=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        if locked:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(asdict(me)) + "\n").encode(), 0)
        try:
            yield me
        finally:
            if locked:  # the next holder must not be mistaken for us
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
    finally:
        os.close(fd)
