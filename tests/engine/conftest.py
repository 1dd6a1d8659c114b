"""Fixtures for tests that run the real vLLM engine (its CPU build) on tiny random-weight models.

The engine is the one scripts/setup.sh installs in ``.venv-engine`` (``make test`` runs setup
first); these tests never skip: a missing engine is a failure. Models are built once per session
by the project's own builder (``playsuite engine build-tiny``), deterministic and offline. A
vLLM start takes about a minute on two cores, so servers are shared where a test allows.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from playsuite.inference.engine import DEFAULT_VLLM, build_tiny_model
from playsuite.registry import Preset, load_registry

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
