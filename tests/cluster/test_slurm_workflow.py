"""The workflow under a real Slurm: `snakemake --profile profiles/slurm`, then kill and resume.

Needs root (it starts Slurm with scripts/slurm/start.sh). Each test runs the real profile path:
every rule instance is an sbatch job, the served preset's play jobs get a fake GPU, sacct (slurmdbd)
reports the jobs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from playsuite.analysis.cost import read_cost_records
from playsuite.harness.manifest import read_manifest
from tests.cluster.slurm import SERVED, cancel_jobs_under, snakemake_slurm, write_probe_workflow

pytestmark = [pytest.mark.slurm, pytest.mark.slow, pytest.mark.games]

CONDITIONS = ("k0-hz0.33-base", "k3-hz0.33-base")


def sacct_rows(workdir: Path) -> list[dict[str, str]]:
    """Accounting rows (allocations only) of every job that ran in ``workdir``."""
    fields = ["JobIDRaw", "Comment", "State", "ElapsedRaw", "AllocTRES", "WorkDir"]
    out = subprocess.run(
        ["sacct", "-X", "-n", "-P", "-a", "-S", "now-1days", f"--format={','.join(fields)}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    rows = [dict(zip(fields, line.split("|"), strict=True)) for line in out.splitlines()]
    return [r for r in rows if r["WorkDir"] == str(workdir)]


def run_to_end(workdir: Path, config: Path, *targets: str, timeout_s: int = 1200) -> str:
    proc = snakemake_slurm(workdir, config, *targets, timeout_s=timeout_s)
    try:
        out, _ = proc.communicate(timeout=timeout_s + 30)
    finally:
        cancel_jobs_under(workdir)
    assert proc.returncode == 0, out[-6000:]
    return out


@pytest.mark.timeout(2400)
def test_profile_runs_the_workflow_on_slurm(slurm: None, tmp_path: Path) -> None:
    config = write_probe_workflow(tmp_path)
    started = time.monotonic()
    run_to_end(tmp_path, config)
    print(f"workflow under Slurm: {time.monotonic() - started:.0f} s")

    # Every target exists and is up to date: a dry run has nothing left to do.
    dry = snakemake_slurm(tmp_path, config, "-n")
    out, _ = dry.communicate(timeout=300)
    assert dry.returncode == 0 and "Nothing to be done" in out, out[-3000:]

    for preset in ("random", SERVED):
        for condition in CONDITIONS:
            rows = read_manifest(
                tmp_path / f"results/runs/probe/{preset}/{condition}/shards/s0000.tsv"
            )
            assert {r.game for r in rows} == {"probe-0", "probe-1"}
            assert all(r.status == "ok" for r in rows), rows
    scores = (tmp_path / "results/scores/frame.tsv").read_text().splitlines()
    assert len(scores) == 1 + 2 * 2 * 2  # header + games x presets x conditions

    # sacct: every job completed; the served preset's play jobs were granted one GPU, no other
    # job was.
    jobs = sacct_rows(tmp_path)
    assert jobs, "sacct shows no job of this run"
    assert all(j["State"] == "COMPLETED" for j in jobs), jobs
    by_rule: dict[str, list[dict[str, str]]] = {}
    for job in jobs:
        by_rule.setdefault(job["Comment"].split("_wildcards_")[0], []).append(job)
    assert len(by_rule["rule_play_shard"]) == 4 and len(by_rule["rule_judge_shard"]) == 4
    for job in jobs:
        served_play = job["Comment"].startswith(f"rule_play_shard_wildcards_probe_{SERVED}_")
        assert ("gres/gpu=1" in job["AllocTRES"]) == served_play, job

    # Cost records: the play jobs' wall time and GPUs as Slurm accounted them.
    costs = read_cost_records(tmp_path / "results/costs")
    assert len(costs) == 4 and set(costs["cost_source"]) == {"sacct"}, costs
    accounted = {j["JobIDRaw"]: j for j in by_rule["rule_play_shard"]}
    for _, row in costs.iterrows():
        job = accounted[row["slurm_job_id"]]
        assert row["wall_s"] == float(job["ElapsedRaw"])
        assert row["gpus"] == (1 if row["preset"] == SERVED else 0)


def episode_metas(run_dir: Path) -> dict[str, int]:
    return {p.parent.name: p.stat().st_mtime_ns for p in run_dir.glob("*/meta.json")}


@pytest.mark.timeout(2400)
def test_killed_run_resumes_without_redoing_finished_work(slurm: None, tmp_path: Path) -> None:
    # One served preset, one condition, one worker: two episodes played one after the other, long
    # enough (40 steps, 0.25 s inference) to kill the play job between the first and the second.
    config_path = write_probe_workflow(tmp_path, steps=40, latency_s=0.25)
    config = yaml.safe_load(config_path.read_text())
    config.update(presets=[SERVED], conditions=["k0-hz0.33-base"])
    config["play"]["workers"] = 1
    config_path.write_text(yaml.safe_dump(config))
    run_dir = tmp_path / f"results/runs/probe/{SERVED}/k0-hz0.33-base"
    manifest = run_dir / "shards/s0000.tsv"
    target = "results/scores/frame.tsv"

    proc = snakemake_slurm(tmp_path, config_path, target, timeout_s=1200)
    try:
        deadline = time.monotonic() + 480
        while not episode_metas(run_dir):
            assert proc.poll() is None, proc.stdout.read()[-4000:] if proc.stdout else ""
            assert time.monotonic() < deadline, "no episode finished"
            time.sleep(0.5)
        # The second episode is under way: kill snakemake, then the Slurm job, both with SIGKILL
        # (as a dead login node and a node failure would).
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        running = [j for j in sacct_rows(tmp_path) if j["State"] == "RUNNING"]
        assert running, "the play job was not running when snakemake was killed"
        subprocess.run(["scancel", "--signal=KILL", "--full", *[j["JobIDRaw"] for j in running]])
    finally:
        cancel_jobs_under(tmp_path)
    deadline = time.monotonic() + 60
    while any(j["State"] == "RUNNING" for j in sacct_rows(tmp_path)):
        assert time.monotonic() < deadline, "the killed job kept running"
        time.sleep(1)

    finished = episode_metas(run_dir)
    assert len(finished) == 1, finished
    assert not manifest.exists()
    # Nothing half-written looks finished: the unfinished game has no meta.json (its directory,
    # if any, holds only temporary names).
    (unfinished,) = {"probe-0", "probe-1"} - set(finished)
    assert not (run_dir / unfinished / "meta.json").exists()

    # Rerun (after removing the lock the killed snakemake left) and finish.
    unlock = snakemake_slurm(tmp_path, config_path, "--unlock")
    assert unlock.wait(timeout=120) == 0
    run_to_end(tmp_path, config_path, target)
    assert {r.game for r in read_manifest(manifest)} == {"probe-0", "probe-1"}
    after = episode_metas(run_dir)
    for game, mtime in finished.items():
        assert after[game] == mtime, f"{game} was played again"
    judgements = tmp_path / f"results/judgements/frame/probe/{SERVED}/k0-hz0.33-base"
    assert {p.stem for p in judgements.glob("*.json")} == {"probe-0", "probe-1"}
    assert len((tmp_path / target).read_text().splitlines()) == 3
    assert not [p for p in run_dir.rglob(".*") if p.name not in (".", "..")], "temporary leftovers"
    states = {j["State"] for j in sacct_rows(tmp_path)}
    assert "CANCELLED" in " ".join(states) and "COMPLETED" in states, states

    # Rerun once more: judgements are not redone either.
    judged = {p.name: p.stat().st_mtime_ns for p in judgements.glob("*.json")}
    run_to_end(tmp_path, config_path, target)
    assert {p.name: p.stat().st_mtime_ns for p in judgements.glob("*.json")} == judged
    assert json.loads((run_dir / unfinished / "meta.json").read_text())["status"] == "ok"
