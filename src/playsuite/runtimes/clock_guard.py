"""The clock guard of native games: a small preload library built here from ``clock_guard.c``.

libfaketime hides a native game's stops from its clocks (:mod:`.native_runtime`), but Debian's
build is not safe for threads when it re-reads an offset file, and a stop can fall inside one of
its calls; both let a game see its clock jump by the hidden time (``clock_guard.c`` says what was
measured). The guard, preloaded in front of libfaketime, takes each new offset from
:class:`ClockState` and hands it to libfaketime through the ``FAKETIME`` variable, and runs every
faked clock call under one lock. It is compiled once per process with the system C compiler
(``CC``, else ``cc``) into a private directory; each game gets a copy in its scratch directory.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shlex
import shutil
import struct
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

SOURCE = "clock_guard.c"
#: Environment variable naming the state file, as the game sees it.
STATE_ENV = "PLAYSUITE_CLOCK_STATE"
#: The state file: the number of offsets written so far, then libfaketime's offset text (NUL
#: padded, at least one NUL); ``struct clock_state`` in clock_guard.c.
SPEC_BYTES = 56
STATE = struct.Struct(f"<Q{SPEC_BYTES}s")
COMPILE_TIMEOUT_S = 120.0


class ClockGuardUnavailable(RuntimeError):
    """The guard cannot be built here (no C compiler, or it failed): native games cannot run
    with a trustworthy clock."""


@functools.cache
def clock_guard_library() -> Path:
    """The guard built for this process (compiled on first use; ``ClockGuardUnavailable``)."""
    source = resources.files("playsuite.runtimes").joinpath(SOURCE).read_bytes()
    compiler = shlex.split(os.environ.get("CC") or "cc")
    if not compiler or shutil.which(compiler[0]) is None:
        raise ClockGuardUnavailable(
            f"no C compiler ({compiler[0] if compiler else 'CC is empty'}) to build the native "
            "runtime's clock guard; install gcc and libc6-dev (scripts/setup.sh does)"
        )
    build = Path(tempfile.mkdtemp(prefix="playsuite-clock-guard-"))
    atexit.register(shutil.rmtree, build, True)
    (build / SOURCE).write_bytes(source)
    name = f"clock_guard-{hashlib.sha256(source).hexdigest()[:12]}.so"
    argv = [*compiler, "-O2", "-shared", "-fPIC", "-pthread", "-o", name, SOURCE, "-ldl"]
    try:
        done = subprocess.run(
            argv, cwd=build, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClockGuardUnavailable(f"building the clock guard failed: {exc}") from exc
    if done.returncode != 0:
        raise ClockGuardUnavailable(
            f"building the clock guard failed ({' '.join(argv)}): {done.stderr.strip()[-2000:]}"
        )
    return build / name


class ClockState:
    """The file the guard maps: each new offset and a count of them, written in place (the
    guard keeps the file mapped, so it is never replaced) and only while every process of the
    game is stopped (or before it starts)."""

    def __init__(self, path: Path, spec: str) -> None:
        self.path = path
        self.count = 0
        path.write_bytes(STATE.pack(0, b""))
        self.write(spec)

    def write(self, spec: str) -> None:
        """A new offset in libfaketime's syntax (``-12.500000``, ``-12.500000 x2``)."""
        text = spec.encode("ascii")
        if len(text) >= SPEC_BYTES:
            raise ValueError(f"clock offset too long for the guard: {spec!r}")
        self.count += 1
        fd = os.open(self.path, os.O_WRONLY)
        try:
            os.pwrite(fd, STATE.pack(self.count, text), 0)
        finally:
            os.close(fd)
