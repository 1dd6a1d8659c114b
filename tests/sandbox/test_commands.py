"""Command lines built from a policy: bwrap and Apptainer enforce the same rules."""

from __future__ import annotations

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
