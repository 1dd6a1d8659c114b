"""Fixtures for tests that run the real vLLM engine (its CPU build) on tiny random-weight models.

The engine is the one scripts/setup.sh installs in ``.venv-engine`` (``make test`` runs setup
first); these tests never skip: a missing engine is a failure. Models are built once per session
by the project's own builder (``playsuite engine build-tiny``), deterministic and offline. A
vLLM start takes about a minute on two cores, so servers are shared where a test allows.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from playsuite.inference.command import server_env, vllm_serve_argv
from playsuite.inference.engine import DEFAULT_VLLM, build_tiny_model
from playsuite.registry import Endpoint, Preset, load_registry

REPO = Path(__file__).resolve().parents[2]
#: Bounds of a CPU start: ~30–60 s alone, more while other tests load both cores.
READY_TIMEOUT_S = 600.0


@pytest.fixture(scope="session")
def engine_vllm() -> str:
    path = REPO / DEFAULT_VLLM
    assert os.access(path, os.X_OK), f"{path} is missing: run scripts/setup.sh (make test does)"
    return str(path)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory, engine_vllm: str) -> Callable[[str], Path]:
    """``tiny_model(arch)``: the directory of that tiny model, built once per session."""
    root = tmp_path_factory.mktemp("tiny-models")
    built: dict[str, Path] = {}

    def get(arch: str) -> Path:
        if arch not in built:
            build_tiny_model(arch, root / arch, vllm=engine_vllm)
            built[arch] = root / arch
        return built[arch]

    return get


@pytest.fixture(scope="session")
def registry():
    return load_registry()


#: The preset the loopback engine serves, its API key and the variable that holds it.
SERVED = "tiny-qwen2.5-vl"
KEY = "sk-playsuite-loopback-test"
KEY_ENV = "PLAYSUITE_TEST_HOSTED_KEY"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def engine_url(
    registry, tiny_model, engine_vllm: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of the real engine serving the tiny Qwen2.5-VL preset with an
    API key, as a hosted API would: one start for every test that plays or asks through an
    endpoint (hosted presets, the tool interface, the annotator)."""
    root = tmp_path_factory.mktemp("tcp-engine")
    preset = registry.preset(SERVED)
    port = _free_port()
    argv = vllm_serve_argv(preset, "UNUSED", vllm=engine_vllm, model=model_of(preset, tiny_model))
    at = argv.index("--uds")
    argv[at : at + 2] = ["--host", "127.0.0.1", "--port", str(port), "--api-key", KEY]
    scratch = root / "scratch"
    scratch.mkdir()
    env = {**os.environ, **server_env(preset, str(scratch))}
    log = root / "engine.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            # its own process group but this session: as VLLMServer does (docs/inference.md)
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            process_group=0,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            assert proc.poll() is None, log.read_text()[-3000:]
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(1)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def hosted_preset(registry, base_url: str) -> Preset:
    """The tiny preset as a hosted one: the engine is somebody else's API at ``base_url``."""
    return dataclasses.replace(
        registry.preset(SERVED),
        kind="openai",
        serve={},
        tiny=None,
        hf_id=None,
        endpoint=Endpoint(
            base_url=f"{base_url}/v1",
            api_key_env=KEY_ENV,
            model=SERVED,  # vLLM serves it under the preset's name (--served-model-name)
            max_concurrency=2,
            requests_per_minute=None,
            timeout_s=300.0,
            attempts=4,
            backoff_s=0.2,
            backoff_max_s=5.0,
        ),
    )


def model_of(preset: Preset, tiny_model: Callable[[str], Path]) -> str:
    """The built model directory of a tiny preset or judge (its hf_id is the workflow's path)."""
    assert preset.tiny, f"{preset.name} is not a tiny preset"
    return str(tiny_model(preset.tiny))


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    """A short directory for sockets (pytest's tmp_path can exceed the 107-byte limit)."""
    path = Path(tempfile.mkdtemp(prefix="pse-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
