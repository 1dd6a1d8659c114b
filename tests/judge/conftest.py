"""Episode fixtures: real H.264 recordings of the scripted game (playsuite.testing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.testing.synthetic_episode import idle_script, playing_script, write_episode


@pytest.fixture(scope="session")
def playing_episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    return write_episode(root / "local/random/k0-hz0.33-base/toy", playing_script())


@pytest.fixture(scope="session")
def idle_episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    return write_episode(root / "local/random/k0-hz0.33-base/idle", idle_script())
