"""Fixtures shared by the catalog tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from playsuite.inference import VLLMServer
from playsuite.testing.repo import copy_repo
from playsuite.testing.standin import standin_argv

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
#: What the catalog rules make for the sample corpus (config/config.yaml, catalog.corpora.sample).
SAMPLE_TARGETS = [
    "games.tsv",
    "funnel.csv",
    "funnel.md",
    "funnel.tex",
    "exclusions.csv",
    "technical_exclusions.csv",
    "technical_exclusions.md",
    "harm_candidates.tsv",
    "harm_categories.md",
    "genre_distribution.csv",
    "genre_distribution.pdf",
    "genre_distribution.png",
]


@pytest.fixture(scope="session")
def catalog_sample(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository copy in which the catalog rules built the sample corpus's tables, launch
    dry-runs included (rule catalog_launch, real games in the sandbox); built once for the
    workflow and the launch-stage tests."""
    work = copy_repo(repo, tmp_path_factory.mktemp("catalog-sample") / "repo")
    targets = [f"results/catalog/sample/{t}" for t in SAMPLE_TARGETS]
    out = subprocess.run(
        [SNAKEMAKE, "--cores", "2", *targets], cwd=work, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return work


@pytest.fixture
def standin_llm() -> Iterator[Callable[..., VLLMServer]]:
    """Start stand-in model servers (a test double speaking vLLM's protocol) on short socket
    paths: ``start(model, **standin options)``; every one is stopped after the test."""
    folder = Path(tempfile.mkdtemp(prefix="psc-", dir="/tmp"))  # short socket path
    started: list[VLLMServer] = []

    def start(model: str, **opts) -> VLLMServer:
        uds = str(folder / f"s{len(started)}.sock")
        srv = VLLMServer(
            standin_argv(uds, model=model, **opts),
            uds,
            ready_timeout_s=20.0,
            poll_interval_s=0.05,
            stop_timeout_s=5.0,
        )
        started.append(srv)
        return srv.start()

    yield start
    for srv in started:
        srv.stop()
    shutil.rmtree(folder, ignore_errors=True)
