"""Cost records resolved against Slurm accounting (playsuite.cluster.accounting)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pandas as pd
import pytest

from playsuite.analysis.cost import read_cost_records
from playsuite.cluster.accounting import (
    SlurmJob,
    gpus_of_tres,
    parse_sacct,
    resolve_costs,
    sacct_jobs,
)

HEADER = "corpus\tpreset\tcondition\tshard\twall_s\tgpus\tstatus\tslurm_job_id\n"


@pytest.mark.parametrize(
    ("tres", "gpus"),
    [
        ("billing=1,cpu=1,mem=2000M,node=1", 0),
        ("billing=1,cpu=1,gres/gpu=1,mem=2000M,node=1", 1),
        ("cpu=16,gres/gpu:a100=2,gres/gpu=2,mem=128000M", 2),
        ("cpu=16,gres/gpu:a100=4,mem=1G", 4),
        ("", 0),
    ],
)
def test_gpus_of_tres(tres: str, gpus: int) -> None:
    assert gpus_of_tres(tres) == gpus


def test_parse_sacct_skips_malformed_rows() -> None:
    text = "7|49|billing=1,cpu=1,gres/gpu=1|COMPLETED\n8|x|cpu=1|FAILED\n|3|cpu=1|COMPLETED\n"
    assert parse_sacct(text) == {"7": SlurmJob("7", 49.0, 1, "COMPLETED")}
    assert parse_sacct("9|12|cpu=2|CANCELLED by 0\n")["9"].state == "CANCELLED"


def records(tmp_path: Path, rows: list[str]) -> Path:
    folder = tmp_path / "costs"
    folder.mkdir()
    for i, row in enumerate(rows):
        (folder / f"s{i:04d}.1-1.tsv").write_text(HEADER + row + "\n")
    return folder


def test_resolve_costs_prefers_finished_slurm_jobs() -> None:
    costs = pd.DataFrame(
        {
            "preset": ["a", "b", "c", "d"],
            "wall_s": [10.0, 20.0, 30.0, 40.0],
            "gpus": [1, 2, 0, 1],
            "slurm_job_id": ["11", "12", "", "14"],
        }
    )
    jobs = {
        "11": SlurmJob("11", 15.0, 1, "COMPLETED"),
        "12": SlurmJob("12", 25.0, 4, "FAILED"),  # failed attempts cost GPU time too
        "14": SlurmJob("14", 5.0, 1, "RUNNING"),  # not final: keep the runner's numbers
    }
    out = resolve_costs(costs, jobs)
    assert out["wall_s"].tolist() == [15.0, 25.0, 30.0, 40.0]
    assert out["gpus"].tolist() == [1, 4, 0, 1]
    assert out["cost_source"].tolist() == ["sacct", "sacct", "runner", "runner"]


def test_records_without_accounting_keep_the_runners_timing(tmp_path: Path, monkeypatch) -> None:
    # sacct as it answers on a cluster without accounting storage: an error and no rows.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sacct = bin_dir / "sacct"
    sacct.write_text(
        "#!/bin/sh\necho 'sacct: error: Slurm accounting storage is disabled' >&2\nexit 1\n"
    )
    sacct.chmod(sacct.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    folder = records(tmp_path, ["local\tm\tk0-hz0.33-base\ts0000\t12.5\t1\tok\t4242"])
    assert sacct_jobs(["4242"]) == {}
    costs = read_cost_records(folder)
    assert costs["wall_s"].tolist() == [12.5] and costs["cost_source"].tolist() == ["runner"]
    assert costs["slurm_job_id"].tolist() == ["4242"]


def test_records_from_outside_slurm_need_no_sacct(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no sacct at all
    folder = records(tmp_path, ["local\trandom\tk0-hz0.33-base\ts0000\t3.0\t0\tok\t"])
    costs = read_cost_records(folder)
    assert costs["cost_source"].tolist() == ["runner"] and costs["wall_s"].tolist() == [3.0]
