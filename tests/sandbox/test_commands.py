"""Command lines built from a policy: bwrap and Apptainer enforce the same rules."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from playsuite.sandbox import (
    GAME_DIR,
    HOME_DIR,
    SCRATCH_DIR,
    Bind,
    apptainer_argv,
    bwrap_argv,
    game_policy,
    sandbox_argv,
)
from playsuite.sandbox.bwrap import can_disable_userns


def _pairs(argv: list[str], flag: str) -> list[tuple[str, str]]:
    return [(argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a == flag]


def test_bwrap_policy(tmp_path: Path) -> None:
    policy = game_policy(tmp_path / "scratch", tmp_path / "game", env={"SEED": "3"})
    policy.prepare_scratch()
    argv = bwrap_argv(policy, ["/usr/bin/python3", "host.py"])
    for flag in ("--unshare-net", "--unshare-pid", "--unshare-user", "--die-with-parent"):
        assert flag in argv
    assert (str(tmp_path / "game"), GAME_DIR) in _pairs(argv, "--ro-bind")
    assert (str(tmp_path / "scratch"), SCRATCH_DIR) in _pairs(argv, "--bind")
    # Nothing of the host is bound wholesale, and nothing writable besides the scratch.
    assert ("/", "/") not in _pairs(argv, "--ro-bind") + _pairs(argv, "--bind")
    assert len(_pairs(argv, "--bind")) == 1
    env = dict(_pairs(argv, "--setenv"))
    assert env["HOME"] == HOME_DIR and env["SEED"] == "3"
    assert "--clearenv" in argv
    assert argv[-3:] == ["--", "/usr/bin/python3", "host.py"]
    assert (tmp_path / "scratch" / ".sandbox" / "passwd").read_text().count(HOME_DIR) == 1


def test_bwrap_x11_and_network(tmp_path: Path) -> None:
    policy = game_policy(tmp_path, None, x11_display=":7")
    policy.prepare_scratch()
    argv = bwrap_argv(policy, ["true"])
    assert ("/tmp/.X11-unix/X7", "/tmp/.X11-unix/X7") in _pairs(argv, "--bind")
    assert dict(_pairs(argv, "--setenv"))["DISPLAY"] == ":7"
    from dataclasses import replace

    assert "--unshare-net" not in bwrap_argv(replace(policy, network=True), ["true"])
    with pytest.raises(ValueError, match="local X displays"):
        game_policy(tmp_path, None, x11_display="host:0")


def test_apptainer_from_same_policy(tmp_path: Path) -> None:
    policy = game_policy(
        tmp_path / "scratch",
        tmp_path / "game",
        x11_display=":2",
        extra_binds=(Bind(tmp_path / "cache", "/cache", writable=True),),
    )
    argv = apptainer_argv(policy, ["/usr/bin/python3", "host.py"], "sandbox.sif")
    assert argv[:4] == ["apptainer", "exec", "--containall", "--writable-tmpfs"]
    joined = " ".join(argv)
    assert "--net --network none" in joined
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"]
    assert f"{tmp_path / 'game'}:{GAME_DIR}:ro" in binds
    assert f"{tmp_path / 'scratch'}:{SCRATCH_DIR}" in binds
    assert f"{tmp_path / 'cache'}:/cache" in binds
    assert "/tmp/.X11-unix:/tmp/.X11-unix" in binds
    assert f"HOME={HOME_DIR}" in argv and "DISPLAY=:2" in argv
    assert argv[argv.index("--pwd") + 1] == GAME_DIR
    assert argv[-3:] == ["sandbox.sif", "/usr/bin/python3", "host.py"]


def test_backend_choice(tmp_path: Path) -> None:
    policy = game_policy(tmp_path, None)
    assert sandbox_argv(policy, ["true"], "none") == ["true"]
    with pytest.raises(ValueError, match="needs an image"):
        sandbox_argv(policy, ["true"], "apptainer")
    with pytest.raises(ValueError, match="unknown sandbox backend"):
        sandbox_argv(policy, ["true"], "docker")


def test_bwrap_forbids_nested_user_namespaces(tmp_path: Path) -> None:
    """This host's bwrap (0.8+) has ``--disable-userns``; it needs ``--unshare-user`` before it."""
    policy = game_policy(tmp_path, None)
    policy.prepare_scratch()
    argv = bwrap_argv(policy, ["true"])
    assert argv.index("--disable-userns") > argv.index("--unshare-user")


def test_a_bwrap_without_disable_userns_still_sandboxes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An older bwrap refuses the option: games still start, and the log says what is missing."""
    old_bwrap = tmp_path / "bwrap"
    old_bwrap.write_text(
        '#!/bin/sh\nfor a in "$@"; do [ "$a" = --disable-userns ] && '
        '{ echo "bwrap: Unknown option --disable-userns" >&2; exit 1; }; done\nexit 0\n'
    )
    old_bwrap.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    policy = game_policy(tmp_path / "scratch", None)
    policy.prepare_scratch()
    with caplog.at_level(logging.WARNING, logger="playsuite.sandbox.bwrap"):
        argv = bwrap_argv(policy, ["true"])
        assert bwrap_argv(policy, ["true"]) == argv  # probed once
    assert argv[0] == str(old_bwrap) and "--unshare-user" in argv
    assert "--disable-userns" not in argv
    warnings = [r.getMessage() for r in caplog.records]
    warnings = [text for text in warnings if "nested user namespaces" in text]
    assert len(warnings) == 1 and "Unknown option --disable-userns" in warnings[0]
    assert can_disable_userns(str(tmp_path / "absent-bwrap")) is False  # absent: no, not a crash
