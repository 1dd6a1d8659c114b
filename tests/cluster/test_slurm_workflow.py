"""The workflow under a real Slurm: `snakemake --profile profiles/slurm` on the embedded default,
then kill and resume.

Needs root (it starts Slurm with scripts/slurm/start.sh). Each test runs the real profile path:
every rule instance is an sbatch job, GPU jobs (Video-LLM judge shards, served presets' play
shards) get a fake GPU, sacct (slurmdbd) reports the jobs. The embedded default's engine checks
run vLLM's CPU build (.venv-engine) in their Slurm jobs, without a GPU.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from playsuite.analysis.cost import read_cost_records
from playsuite.analysis.scores import read_scores
from playsuite.processes import probe
from playsuite.records.manifest import read_manifest
from tests.cluster.slurm import (
    REPO,
    SERVED,
    VLM_JUDGE,
    cancel_jobs_under,
    snakemake_slurm,
    write_default_workflow,
    write_probe_workflow,
)

pytestmark = [pytest.mark.slurm, pytest.mark.slow, pytest.mark.games]


def sacct_rows(workdir: Path, since: str = "now-1days") -> list[dict[str, str]]:
    """Accounting rows (allocations only) of every job that ran in ``workdir`` from ``since``
    (Slurm's accounting outlives a test: an earlier run in the same folder must not count)."""
    fields = ["JobIDRaw", "Comment", "State", "ElapsedRaw", "AllocTRES", "WorkDir"]
    done = probe(
        ["sacct", "-X", "-n", "-P", "-a", "-S", since, f"--format={','.join(fields)}"],
        timeout_s=60,
    )
    assert done is not None and done.returncode == 0, done and done.stderr
    out = done.stdout
    rows = [dict(zip(fields, line.split("|"), strict=True)) for line in out.splitlines()]
    return [r for r in rows if r["WorkDir"] == str(workdir)]


def run_to_end(
    workdir: Path, config: Path, *targets: str, timeout_s: int = 1200, repo: Path = REPO
) -> str:
    proc = snakemake_slurm(workdir, config, *targets, timeout_s=timeout_s, repo=repo)
    try:
        out, _ = proc.communicate(timeout=timeout_s + 30)
    finally:
        cancel_jobs_under(workdir)
    assert proc.returncode == 0, out[-6000:]
    return out


def rule_of(job: dict[str, str]) -> str:
    """The rule a job ran (the plugin stores ``rule_{name}_wildcards_...`` as its comment)."""
    return job["Comment"].split("_wildcards_")[0].removeprefix("rule_")


@pytest.mark.timeout(2700)
def test_embedded_default_runs_on_slurm(slurm: None, tmp_path: Path) -> None:
    """The README's workflow on a clean copy, every rule instance but the Snakefile's local rules
    (acquisition, analysis) a Slurm job: eight real games fetched from the registries, the random
    baseline under the main conditions (the history ablation's too), the frame, state and (stand-in
    served) Video-LLM judges, the engine checks (a tiny random-weight preset and judge on the real
    vLLM CPU build), the catalog sample, every table and figure."""
    repo = tmp_path / "playsuite"
    config = write_default_workflow(repo)
    settings = yaml.safe_load(config.read_text())
    checks = settings["engine"]["checks"]
    check_condition = settings["analysis"]["main"]["with_history"]
    started = time.monotonic()
    since = time.strftime("%Y-%m-%dT%H:%M:%S")
    run_to_end(repo, config, timeout_s=2400, repo=repo)
    print(f"embedded default under Slurm: {time.monotonic() - started:.0f} s")

    # Every target of the default exists and is up to date: a dry run has nothing left to do.
    dry = snakemake_slurm(repo, config, "-n", repo=repo)
    out, _ = dry.communicate(timeout=300)
    assert dry.returncode == 0 and "Nothing to be done" in out, out[-3000:]

    # Every game was played in every run and every episode finished.
    corpus = yaml.safe_load((repo / "config/corpora/local.yaml").read_text())["games"]
    games = {g["id"] for g in corpus}
    manifests = sorted((repo / "results/runs/local").glob("*/*/shards/s0000.tsv"))
    played = {(m.parents[2].name, m.parents[1].name) for m in manifests}
    check_runs = {(p, check_condition) for p in checks["presets"]}
    runs = played - check_runs
    assert check_runs <= played and {p for p, _ in runs} == set(settings["presets"])
    assert len(runs) == 2, sorted(runs)  # 1 baseline x 2 main conditions (the ablation's too)
    for manifest in manifests:
        rows = read_manifest(manifest)
        assert {r.game for r in rows} == games, manifest
        bad_episodes = [r for r in rows if not (r.status == "ok" and r.steps == 2)]
        assert not bad_episodes, bad_episodes
    # Each judge scored every episode of the paper's runs it judges (the state judge: the games
    # that declare probes); no scores table holds an engine check.
    probed = sum(1 for g in corpus if g.get("probes"))
    for judge, per_run in (("frame", len(games)), (VLM_JUDGE, len(games)), ("state", probed)):
        scores = read_scores(repo / f"results/scores/{judge}.tsv")
        assert len(scores) == len(runs) * per_run, judge
        assert set(scores["status"]) == {"ok"}, scores[scores["status"] != "ok"]
    assert not (repo / f"results/scores/{checks['judge']}.tsv").exists()
    # The engine checks: played and judged by the tiny judge (real engine; noise answers), in
    # their own table and report section, in no paper table.
    table = pd.read_csv(repo / "results/tables/engine_checks.csv")
    assert list(table["preset"]) == checks["presets"] and set(table["judge"]) == {checks["judge"]}
    assert list(table["episodes"]) == [len(games)] and list(table["steps"]) == [2 * len(games)]
    assert list(table["episode_statuses"]) == [f"ok:{len(games)}"]
    # Every episode has a judgement; random weights sometimes write JSON that fails validation
    # (recorded as failed after the retries), but the real judge path returned levels.
    judged = dict(s.split(":") for s in table["judge_statuses"][0].split())
    assert set(judged) <= {"ok", "failed"} and sum(map(int, judged.values())) == len(games)
    assert "ok" in judged and table["judged"][0] == int(judged["ok"]), table.to_dict("records")
    report = (repo / "results/report/frame/reproduction.md").read_text()
    assert "## Engine checks: random-weight models, not results" in report
    assert not any("tiny" in p.read_text() for p in (repo / "results/tables/frame").glob("*.*"))

    # sacct: every job completed; only the Video-LLM judge's jobs were granted a GPU.
    jobs = sacct_rows(repo, since)
    assert jobs, "sacct shows no job of this run"
    unfinished = [j for j in jobs if j["State"] != "COMPLETED"]
    assert not unfinished, unfinished
    by_rule: dict[str, list[dict[str, str]]] = {}
    for job in jobs:
        by_rule.setdefault(rule_of(job), []).append(job)
    # Acquisition and the analysis ran on the submit host (the Snakefile's localrules), not queued.
    submit_host = {"acquire_game", "judge_scores", "main_results", "ablation_figure", "all"}
    submit_host |= {"reproduction_report", "inspection_pages", "engine_checks_table", "dashboard"}
    assert not submit_host & set(by_rule), sorted(by_rule)
    assert all((repo / "results/games" / game / "acquired.json").is_file() for game in games)
    # Launch validation: one job for the corpus's one acquisition block, a verdict per game.
    assert "validate_launch" not in by_rule and len(by_rule["validate_launch_block"]) == 1
    assert all((repo / "results/games" / game / "launch.json").is_file() for game in games)
    # 2 paper play shards + one engine check; 3 judges x 2 + the tiny judge's one shard; the
    # two tiny models (the preset's and the judge's architecture).
    assert len(by_rule["play_shard"]) == 3 and len(by_rule["judge_shard"]) == 3 * 2 + 1
    assert len(by_rule["build_tiny_model"]) == 2
    assert {"catalog_triage", "catalog_decide"} <= set(by_rule), sorted(by_rule)
    assert "catalog_launch" not in by_rule  # the sample's dry-runs are left out here
    assert list((repo / "results/figures").glob("*/ablation_history.pdf"))  # a local rule
    for job in jobs:
        vlm_judge = job["Comment"].startswith(f"rule_judge_shard_wildcards_{VLM_JUDGE}_")
        assert ("gres/gpu=1" in job["AllocTRES"]) == vlm_judge, job

    # Cost records: the play jobs' wall time as Slurm accounted it (baselines and the CPU-served
    # tiny preset: no GPU).
    costs = read_cost_records(repo / "results/costs")
    assert len(costs) == 3 and set(costs["cost_source"]) == {"sacct"}, costs
    accounted = {j["JobIDRaw"]: j for j in by_rule["play_shard"]}
    for _, row in costs.iterrows():
        assert row["wall_s"] == float(accounted[row["slurm_job_id"]]["ElapsedRaw"])
        assert row["gpus"] == 0


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
        probe(["scancel", "--signal=KILL", "--full", *[j["JobIDRaw"] for j in running]])
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
    # The served preset's play jobs asked for one GPU and Slurm granted it; the finishing job's
    # cost record took its wall time and GPU from sacct.
    plays = [j for j in sacct_rows(tmp_path) if rule_of(j) == "play_shard"]
    assert plays and all("gres/gpu=1" in j["AllocTRES"] for j in plays), plays
    costs = read_cost_records(tmp_path / "results/costs")
    assert len(costs) >= 1 and set(costs["cost_source"]) == {"sacct"}, costs
    assert set(costs["gpus"]) == {1}, costs

    # Rerun once more: judgements are not redone either.
    judged = {p.name: p.stat().st_mtime_ns for p in judgements.glob("*.json")}
    run_to_end(tmp_path, config_path, target)
    assert {p.name: p.stat().st_mtime_ns for p in judgements.glob("*.json")} == judged
    assert json.loads((run_dir / unfinished / "meta.json").read_text())["status"] == "ok"
