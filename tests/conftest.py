"""Shared fixtures. Test modules live in one folder per subsystem."""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.testing.repo import copy_repo

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """A fresh copy of the repository (playsuite.testing.repo) for one test to run Snakemake in."""
    return copy_repo(REPO, tmp_path / "repo")


from hypothesis import HealthCheck, settings  # noqa: E402

# CI machines have two cores shared with games and browsers: time limits would make tests flaky.
settings.register_profile("playsuite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("playsuite")
