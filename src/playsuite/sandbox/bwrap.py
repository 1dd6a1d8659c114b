"""Bubblewrap backend: turn a :class:`SandboxPolicy` into a ``bwrap`` command line.

The sandbox root is bwrap's own empty tmpfs; only the listed host paths are bound into it, so no
mount point is ever created on the host and nothing unlisted (the repository, other runs' results,
``/root``) exists inside. Namespaces: user (the game runs as uid 1000, never root), PID (the
game's processes die with the sandbox), network (only a loopback nobody listens on), IPC, UTS.
``--die-with-parent`` kills the sandbox when the harness process dies. ``--disable-userns``
(bubblewrap 0.8+) keeps game code from creating a user namespace of its own, in which it would be
uid 0 with every capability; see :func:`can_disable_userns` for hosts whose bwrap cannot.

A policy with ``usr_layers`` (a Debian game's own packages and dependency closure) gets an
overlay of those trees and the host's ``/usr`` as its ``/usr``: bubblewrap 0.8 has no overlay
option, so the command starts in a private user and mount namespace (``unshare``) that mounts the
overlay, then runs bwrap nested inside it (see ``OVERLAY_SCRIPT``).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from playsuite.processes import probe
from playsuite.sandbox.policy import (
    ETC_ENTRIES,
    OPTIONAL_RO_DIRS,
    SANDBOX_GID,
    SANDBOX_UID,
    SCRATCH_DIR,
    SYSTEM_DIRS,
    TMP_DIR,
    X11_SOCKET_DIR,
    SandboxPolicy,
)

log = logging.getLogger(__name__)


class SandboxUnavailable(RuntimeError):
    """The sandbox tool is missing or cannot create namespaces on this machine."""


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed; run scripts/setup.sh")
    return path


@functools.cache
def can_disable_userns(bwrap: str) -> bool:
    """Whether ``bwrap`` can forbid nested user namespaces (``--disable-userns``) on this host.

    Inside its own user namespace a game is root, with every capability over what it can see:
    the extra kernel surface is what sandbox escapes go through. bubblewrap before 0.8 lacks the
    option, and kernels before 4.9 cannot apply it; either way every game would fail to start if
    it were passed blindly. So the real thing is tried once per process, and a host that cannot
    do it runs games without it and says so in the log (once).
    """
    argv = [bwrap, "--unshare-user", "--disable-userns", "--assert-userns-disabled"]
    done = probe([*argv, "--ro-bind", "/", "/", "--", "true"], timeout_s=15.0)
    if done is not None and done.returncode == 0:
        return True
    why = "did not answer" if done is None else (done.stderr.strip() or f"exit {done.returncode}")
    log.warning(
        "sandbox: %s cannot forbid nested user namespaces (--disable-userns: %s); games may "
        "create their own (uid 0 inside the sandbox). bubblewrap 0.8 or newer closes this.",
        bwrap,
        why,
    )
    return False


#: Mounts the overlay of a game's ``/usr`` layers, then becomes the bwrap command: run in a user
#: and mount namespace of its own (``unshare``), so the mount is invisible outside and needs no
#: privilege. The kernel's overlayfs first (unprivileged since Linux 5.11), fuse-overlayfs where
#: the kernel refuses. Arguments: the lowerdir list, the mount point, then the bwrap argv.
OVERLAY_SCRIPT = (
    'mount -t overlay overlay -o "ro,lowerdir=$1" "$2" 2>/dev/null'
    ' || fuse-overlayfs -o "lowerdir=$1" "$2" 2>/dev/null'
    " || { echo \"playsuite sandbox: cannot lay the game's packages over /usr"
    ' (overlay mount refused)" >&2; exit 125; }; shift 2; exec "$@"'
)


def merged_usr(policy: SandboxPolicy) -> Path:
    """Where the layered ``/usr`` is mounted (a directory of the run's scratch, empty outside
    the sandbox's own mount namespace)."""
    return policy.scratch / ".sandbox" / "usr"


def _lowerdir(layers: Sequence[Path]) -> str:
    """overlayfs's ``lowerdir`` list: the layers top first, the host's ``/usr`` at the bottom
    (``:``, ``,`` and ``\\`` in a path are escaped as the mount option requires)."""

    def escape(path: Path | str) -> str:
        return str(path).replace("\\", "\\\\").replace(":", "\\:").replace(",", "\\,")

    return ":".join(escape(p) for p in [*layers, "/usr"])


def _overlay_prefix(policy: SandboxPolicy) -> list[str]:
    unshare = shutil.which("unshare")
    if unshare is None:
        raise SandboxUnavailable("unshare (util-linux) is needed to run a Debian game's packages")
    target = merged_usr(policy)
    target.mkdir(parents=True, exist_ok=True)
    return [
        unshare,
        "--user",
        "--map-root-user",
        "--mount",
        "--",
        "/bin/sh",
        "-c",
        OVERLAY_SCRIPT,
        "sh",
        _lowerdir(policy.usr_layers),
        str(target),
    ]


def _system_args(usr: str = "/usr") -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif path == "/usr":
            args += ["--ro-bind", usr, path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for name in ETC_ENTRIES:
        host = f"/etc/{name}"
        if os.path.lexists(host):
            args += ["--ro-bind-try", host, host]
    for path in OPTIONAL_RO_DIRS:
        args += ["--ro-bind-try", path, path]
    return args


def bwrap_argv(policy: SandboxPolicy, command: Sequence[str]) -> list[str]:
    """The full argv that runs ``command`` inside the sandbox described by ``policy``.

    The caller must have run :meth:`SandboxPolicy.prepare_scratch` (it writes the passwd/group
    files bound at ``/etc/passwd`` and ``/etc/group``).
    """
    if not command:
        raise ValueError("empty command")
    scratch = policy.scratch
    bwrap = bwrap_path()
    argv = _overlay_prefix(policy) if policy.usr_layers else []
    argv += [bwrap, "--unshare-user"]
    if can_disable_userns(bwrap):
        argv.append("--disable-userns")  # needs --unshare-user: the game's namespace is ours
    argv += [
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_GID),
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        policy.hostname,
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    if not policy.network:
        argv.append("--unshare-net")
    argv += _system_args(str(merged_usr(policy)) if policy.usr_layers else "/usr")
    argv += [
        "--ro-bind",
        str(scratch / ".sandbox" / "passwd"),
        "/etc/passwd",
        "--ro-bind",
        str(scratch / ".sandbox" / "group"),
        "/etc/group",
        "--dev",
        "/dev",
        "--tmpfs",
        "/dev/shm",
        "--proc",
        "/proc",
        "--tmpfs",
        TMP_DIR,
        "--bind",
        str(scratch),
        SCRATCH_DIR,
    ]
    if policy.share_sys:
        argv += ["--ro-bind", "/sys", "/sys"]
    socket = policy.x11_socket()
    if socket is not None:
        argv += ["--dir", X11_SOCKET_DIR, "--bind", str(socket), str(socket)]
    for bind in policy.binds:
        source = str(Path(bind.source).absolute())
        if bind.writable:
            flag = "--bind-try" if bind.optional else "--bind"
        else:
            flag = "--ro-bind-try" if bind.optional else "--ro-bind"
        argv += [flag, source, bind.target]
    argv.append("--clearenv")
    for key, value in sorted(policy.environment().items()):
        argv += ["--setenv", key, value]
    argv += ["--chdir", policy.cwd, "--"]
    argv += list(command)
    return argv
