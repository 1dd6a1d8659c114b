"""Session fixture: a real single-node Slurm (scripts/slurm/start.sh); helpers in slurm.py."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest

from tests.cluster.slurm import REPO


def _slurm_running() -> bool:
    return subprocess.run(["scontrol", "ping"], capture_output=True).returncode == 0


@pytest.fixture(scope="session")
def slurm() -> Iterator[None]:
    """Slurm with accounting and two fake GPUs; stopped afterwards if this session started it."""
    if os.geteuid() != 0:
        pytest.skip("starting Slurm needs root (scripts/slurm/start.sh)")
    was_running = _slurm_running()
    result = subprocess.run(
        ["timeout", "-k", "10", "300", "bash", str(REPO / "scripts/slurm/start.sh")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    yield
    if not was_running:
        subprocess.run(["bash", str(REPO / "scripts/slurm/stop.sh")], capture_output=True)
