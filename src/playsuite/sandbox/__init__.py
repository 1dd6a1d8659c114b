"""Isolation of game code: bubblewrap here, Apptainer on clusters, one policy for both.

Typical use (a runtime)::

    policy = game_policy(scratch=workdir / "sandbox", game_dir=acquired.files)
    proc = SandboxedProcess(policy, ["/usr/bin/python3", "/opt/host.py"], backend="bwrap")
    ...
    proc.kill()           # reaps every process of the sandbox; proc.leftovers lists escapees

For programs launched by another tool (Chromium under Playwright) use :func:`write_wrapper`.
"""

from playsuite.sandbox.apptainer import apptainer_argv
from playsuite.sandbox.bwrap import SandboxUnavailable, bwrap_argv
from playsuite.sandbox.policy import (
    GAME_DIR,
    HOME_DIR,
    SCRATCH_DIR,
    Bind,
    SandboxPolicy,
    game_policy,
)
from playsuite.sandbox.process import (
    BACKENDS,
    SandboxedProcess,
    processes_in_namespace,
    sandbox_argv,
    write_wrapper,
)

__all__ = [
    "BACKENDS",
    "GAME_DIR",
    "HOME_DIR",
    "SCRATCH_DIR",
    "Bind",
    "SandboxPolicy",
    "SandboxUnavailable",
    "SandboxedProcess",
    "apptainer_argv",
    "bwrap_argv",
    "game_policy",
    "processes_in_namespace",
    "sandbox_argv",
    "write_wrapper",
]
