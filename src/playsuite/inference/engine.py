"""The inference engine installation: where vLLM is, and the work that must run inside it.

vLLM lives in an environment of its own (``.venv-engine``, made by scripts/setup.sh: the CPU build
here, the CUDA build on GPU nodes), because its pinned torch and transformers must not decide the
project's own dependencies. The project finds it through configuration (``engine.vllm`` in the
workflow config, ``--vllm`` on the command line), never by whatever ``vllm`` happens to be first
on PATH. Two jobs run in the engine's own Python, as scripts beside this module:

* :mod:`.tiny_models` builds tiny random-weight models (``playsuite engine build-tiny``);
* :mod:`.serve_args_check` parses ``vllm serve`` command lines with vLLM's own parser.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playsuite.config import schema_default
from playsuite.files import atomic_dir

#: The engine command the workflow and the CLI use unless told otherwise: the config schema's
#: ``engine.vllm`` (scripts/setup.sh installs it there).
DEFAULT_VLLM: str = schema_default("config", "engine", "vllm")
#: Architectures the tiny-model builder makes (see :mod:`.tiny_models`).
TINY_ARCHITECTURES = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl")
#: Environment for a vLLM process that must stay on this machine and off any hub.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"}

_HERE = Path(__file__).resolve().parent


class EngineUnavailable(RuntimeError):
    """The configured vLLM installation is missing or broken."""


def resolve_vllm(command: str = DEFAULT_VLLM, base: str | os.PathLike[str] | None = None) -> str:
    """The absolute path of the engine command ``command``.

    A command with a slash is a path (relative ones against ``base``, default the working
    directory: the workflow runs from the repository); a bare name is looked up on PATH.
    """
    if "/" in command:
        path = Path(command)
        if not path.is_absolute():
            path = Path(base or os.getcwd()) / path
        if not os.access(path, os.X_OK):
            raise EngineUnavailable(
                f"vLLM command {command!r} not found at {path}; run scripts/setup.sh (it installs "
                "the engine in .venv-engine) or set engine.vllm to your vLLM installation"
            )
        return str(path)
    found = shutil.which(command)
    if found is None:
        raise EngineUnavailable(f"vLLM command {command!r} is not on PATH; set engine.vllm")
    return found


def engine_python(vllm: str = DEFAULT_VLLM) -> str:
    """The Python interpreter of the environment that holds ``vllm`` (its console script)."""
    exe = Path(resolve_vllm(vllm))
    python = exe.with_name("python")
    if not os.access(python, os.X_OK):
        # a vllm outside a virtual environment: its script's shebang names the interpreter
        first = exe.read_bytes()[:256].split(b"\n", 1)[0]
        if first.startswith(b"#!"):
            python = Path(first[2:].decode().strip().split()[0])
    if not os.access(python, os.X_OK):
        raise EngineUnavailable(f"cannot find the Python interpreter of {exe}")
    return str(python)


def _run_engine_script(
    script: str, args: Sequence[str], vllm: str, *, stdin: str | None = None, timeout_s: float
) -> str:
    cmd = [engine_python(vllm), str(_HERE / script), *args]
    env = {**os.environ, **OFFLINE_ENV}
    env.pop("PYTHONPATH", None)  # the engine's own packages only
    try:
        done = subprocess.run(
            cmd, input=stdin, capture_output=True, text=True, timeout=timeout_s, env=env
        )
    except subprocess.TimeoutExpired:
        raise EngineUnavailable(f"{script} did not finish in {timeout_s:g} s") from None
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        raise EngineUnavailable(f"{script} failed ({done.returncode}):\n{tail}")
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def build_tiny_model(
    arch: str, out: str | os.PathLike[str], *, vllm: str = DEFAULT_VLLM, timeout_s: float = 600
) -> dict[str, Any]:
    """Build the tiny ``arch`` model into ``out`` (replaced atomically); the builder's summary
    (parameters, bytes, sha256 of the files)."""
    if arch not in TINY_ARCHITECTURES:
        raise ValueError(f"unknown tiny architecture {arch!r}; known: {TINY_ARCHITECTURES}")
    out = Path(out)
    with atomic_dir(out) as partial:
        line = _run_engine_script(
            "tiny_models.py", ["--out", str(partial), "--arch", arch], vllm, timeout_s=timeout_s
        )
    summary: dict[str, Any] = json.loads(line)
    return summary


def check_serve_argv(
    argvs: Sequence[Sequence[str]], *, vllm: str = DEFAULT_VLLM, timeout_s: float = 300
) -> list[str | None]:
    """Per command line, ``None`` if the installed vLLM's ``serve`` parser accepts it, else the
    parser's complaint."""
    line = _run_engine_script(
        "serve_args_check.py",
        [],
        vllm,
        stdin=json.dumps([[str(a) for a in argv] for argv in argvs]),
        timeout_s=timeout_s,
    )
    results: list[str | None] = json.loads(line)
    return results


def engine_version(vllm: str = DEFAULT_VLLM) -> str:
    """The installed version of the configured engine's ``vllm`` distribution (what
    ``vllm --version`` prints), read from its environment's package metadata: ``vllm --version``
    imports the whole engine first, about 20 s of CPU on a laptop-class core."""
    done = subprocess.run(
        [
            engine_python(vllm),
            "-c",
            "from importlib.metadata import version; print(version('vllm'))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},  # the engine's own
    )
    if done.returncode != 0:
        raise EngineUnavailable(f"no vllm distribution beside {vllm}: {done.stderr.strip()[-500:]}")
    return done.stdout.strip().splitlines()[-1]
