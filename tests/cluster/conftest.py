"""Session fixture: a real single-node Slurm (scripts/slurm/start.sh); helpers in slurm.py."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest

from playsuite.processes import probe_ok
from tests.cluster.slurm import REPO


def _slurm_running() -> bool:
    """Is a Slurm controller answering? False before start.sh has installed Slurm at all."""
    return probe_ok(["scontrol", "ping"], timeout_s=30)


#: CPU slots the test node offers: twice its cores, so that while one job starts (each job runs a
#: Snakemake of its own) or waits on a game, another one works. The workflow's requests are the
#: profile's; only the test node is generous.
NODE_CPUS = 2 * (os.cpu_count() or 1)


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
        env={**os.environ, "PLAYSUITE_SLURM_CPUS": str(NODE_CPUS)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    yield
    if not was_running:
        subprocess.run(["bash", str(REPO / "scripts/slurm/stop.sh")], capture_output=True)
