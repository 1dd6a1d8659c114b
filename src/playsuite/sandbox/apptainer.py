"""Apptainer backend for clusters: the same :class:`SandboxPolicy` as an ``apptainer exec`` line.

HPC nodes often forbid unprivileged user namespaces for bubblewrap but allow Apptainer. The
mapping: ``--containall`` (private PID and IPC namespaces, clean environment, private /tmp and no
host home), ``--net --network none`` (loopback only; unprivileged users may ask for ``none`` but
not for a bridge), ``--writable-tmpfs`` (the image stays read-only; scratch writes go to the bound
run directory), binds ``src:dst:ro`` for the game, ``--env`` for the environment, ``--pwd``.
The image is the game-sandbox image built from ``containers/``; it supplies ``/usr`` instead of
the host. A Debian game's own packages and dependency closure (``usr_layers``) become read-only
directory overlays (``--overlay DIR:ro``, listed bottom first), so they sit at their installed
paths as they do under bubblewrap (not exercised here: this machine has no Apptainer).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from playsuite.sandbox.bwrap import SandboxUnavailable
from playsuite.sandbox.policy import HOME_DIR, SCRATCH_DIR, X11_SOCKET_DIR, SandboxPolicy


def apptainer_path() -> str:
    path = shutil.which("apptainer")
    if path is None:
        raise SandboxUnavailable("apptainer is not installed on this machine")
    return path


def _bind_spec(source: Path | str, target: str, writable: bool) -> str:
    spec = f"{source}:{target}"
    return spec if writable else f"{spec}:ro"


def apptainer_argv(
    policy: SandboxPolicy,
    command: Sequence[str],
    image: str | Path,
    *,
    executable: str = "apptainer",
) -> list[str]:
    """The ``apptainer exec`` argv that runs ``command`` in ``image`` under ``policy``.

    ``executable`` defaults to the bare name so the line can be built (and tested) on machines
    without Apptainer; :func:`apptainer_path` resolves it where it runs.
    """
    if not command:
        raise ValueError("empty command")
    argv = [executable, "exec", "--containall", "--writable-tmpfs"]
    if not policy.network:
        argv += ["--net", "--network", "none"]
    argv += ["--home", f"{policy.home}:{HOME_DIR}"]
    argv += ["--bind", _bind_spec(policy.scratch, SCRATCH_DIR, True)]
    socket = policy.x11_socket()
    if socket is not None:
        argv += ["--bind", _bind_spec(X11_SOCKET_DIR, X11_SOCKET_DIR, True)]
    for bind in policy.binds:
        if bind.optional and not Path(bind.source).exists():
            continue
        argv += ["--bind", _bind_spec(Path(bind.source).absolute(), bind.target, bind.writable)]
    # A Debian game's /usr layers: each layer's parent mirrors "/" (files/usr -> /usr).
    for layer in reversed(policy.usr_layers):
        argv += ["--overlay", f"{Path(layer).parent}:ro"]
    for key, value in sorted(policy.environment().items()):
        argv += ["--env", f"{key}={value}"]
    argv += ["--pwd", policy.cwd, str(image)]
    argv += list(command)
    return argv
