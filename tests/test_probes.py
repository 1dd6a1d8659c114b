"""Probes of external programs answer "no" when the program is absent (a brand-new machine).

Every question the project or its test fixtures ask another program (Slurm's scontrol, squeue and
sacct, dpkg-query, ...) goes through :func:`playsuite.processes.probe`; these tests run the real
probes with an empty PATH, as on a machine where nothing has been installed yet.
"""

from __future__ import annotations

import pytest

from playsuite.cluster.accounting import sacct_jobs
from playsuite.processes import probe, probe_ok
from playsuite.runtimes.fetchers import apt_index
from playsuite.runtimes.fetchers.apt_index import AptIndex


@pytest.fixture
def empty_path(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))


def test_probe_of_an_absent_program_is_none(empty_path) -> None:
    assert probe(["scontrol", "ping"]) is None
    assert probe_ok(["sacct", "--version"]) is False


def test_probe_of_a_program_that_is_not_executable(tmp_path, empty_path) -> None:
    script = tmp_path / "squeue"
    script.write_text("#!/bin/sh\necho hi\n")  # no execute bit
    assert probe([str(script)]) is None


def test_probe_that_hangs_is_none_after_its_timeout() -> None:
    assert probe(["sleep", "5"], timeout_s=0.2) is None


def test_probe_answers_when_the_program_exists() -> None:
    done = probe(["sh", "-c", "echo yes; exit 3"])
    assert done is not None and done.returncode == 3 and done.stdout == "yes\n"


def test_project_probes_survive_an_empty_path(empty_path) -> None:
    assert sacct_jobs(["12345"]) == {}
    assert apt_index._host_packages.__wrapped__() == ({}, {})  # no dpkg: nothing installed
    assert AptIndex().show("bubblewrap") is None  # no apt-cache: the index knows nothing


def test_slurm_fixture_probe_survives_an_empty_path(empty_path) -> None:
    from tests.cluster.conftest import _slurm_running

    assert _slurm_running() is False
