"""What the cost figure counts (paper Figure 16): the configured campaign only, every attempt
(retries, failed and killed ones), the whole Slurm allocation where accounting knows it, GPUs per
replica; judging apart in its own table."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from playsuite.analysis.cost import cost_table, judge_cost_table, read_cost_records
from playsuite.analysis.settings import analysis_settings
from playsuite.cluster.accounting import SlurmJob, resolve_costs
from playsuite.harness.costs import JUDGE_COLUMNS, CostRecord

K0, K3 = "k0-hz0.33-base", "k3-hz0.33-base"


def record(directory: Path, name: str, **row) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    base = {"corpus": "itch", "preset": "m", "condition": K0, "shard": "s0000", "gpus": 1}
    pd.DataFrame([base | row]).to_csv(directory / f"{name}.tsv", sep="\t", index=False)


def scores(rows: list[tuple[str, str, str, float | None]]) -> pd.DataFrame:
    """(corpus, preset, condition, level); status ok where a level is given."""
    return pd.DataFrame(
        [
            {
                "corpus": c,
                "preset": p,
                "family": "VLM",
                "condition": k,
                "game": f"g{i}",
                "judge": "frame",
                "level": lv,
                "status": "ok" if lv is not None else "judge_failed",
            }
            for i, (c, p, k, lv) in enumerate(rows)
        ]
    )


def test_only_the_campaign_counts(tmp_path: Path) -> None:
    d = tmp_path / "costs"
    record(d, "a", wall_s=3600, status="ok")  # itch, no history: counted
    record(d, "b", wall_s=7200, status="ok", condition=K3)  # with history: another campaign
    record(d, "c", wall_s=1800, status="ok", corpus="pyweek")  # another corpus
    sc = scores(
        [("itch", "m", K0, 1.0), ("itch", "m", K0, 3.0), ("itch", "m", K3, 2.0)]
        + [("pyweek", "m", K0, 4.0)] * 3
    )
    costs = read_cost_records(d)
    (row,) = cost_table(sc, costs, K0, None, corpus="itch").to_dict("records")
    assert row["jobs"] == 1 and row["gpu_hours"] == pytest.approx(1.0)
    assert row["scored_games"] == 2 and row["gpu_hours_per_1k"] == pytest.approx(500.0)
    assert row["mean_progress"] == pytest.approx(2.0)
    (every,) = cost_table(sc, costs, K0, None).to_dict("records")  # no corpus: all corpora
    assert every["jobs"] == 2 and every["scored_games"] == 5
    assert every["gpu_hours"] == pytest.approx(1.5)


def test_retries_failed_and_killed_attempts_all_count(tmp_path: Path) -> None:
    d = tmp_path / "costs"
    record(d, "s0.1", wall_s=600, status="failed")  # first attempt of the shard
    record(d, "s0.2", wall_s=900, status="running")  # retry killed by kill -9: no final status
    record(d, "s0.3", wall_s=2100, status="ok")  # second retry
    record(d, "s1.1", wall_s=0, status="terminated")  # interrupted (SIGTERM) at once
    costs = read_cost_records(d)
    assert sorted(costs["status"]) == ["failed", "killed", "ok", "terminated"]
    sc = scores([("itch", "m", K0, 1.0)])
    (row,) = cost_table(sc, costs, K0, None, corpus="itch").to_dict("records")
    assert row["jobs"] == 4 and row["failed_jobs"] == 3 and row["killed_jobs"] == 1
    assert row["gpu_hours"] == pytest.approx(3600 / 3600)


def test_killed_attempt_is_counted_up_to_its_last_heartbeat(tmp_path: Path) -> None:
    stem = tmp_path / "costs" / "itch" / "m" / K0 / "s0000.tsv"
    stem.parent.mkdir(parents=True)
    fields = {"corpus": "itch", "preset": "m", "condition": K0, "shard": "s0000", "gpus": 1}
    rec = CostRecord(stem, fields, heartbeat_s=0.05).start()
    # Wait for a heartbeat past 0.2 s (polled: under load the beats come late, never early).
    deadline = time.monotonic() + 30
    while float(pd.read_csv(rec.path, sep="\t")["wall_s"].iloc[0]) < 0.2:
        assert time.monotonic() < deadline, "no heartbeat rewrote the record"
        time.sleep(0.02)
    rec._stop.set()  # the job dies here: no finish(), only heartbeats were written
    rec._thread.join()
    last_beat = float(pd.read_csv(rec.path, sep="\t")["wall_s"].iloc[0])
    (row,) = read_cost_records(tmp_path / "costs").to_dict("records")
    assert row["status"] == "killed" and last_beat >= 0.2
    assert row["wall_s"] == pytest.approx(last_beat)


def test_gpus_per_replica_multiply_the_time(tmp_path: Path) -> None:
    d = tmp_path / "costs"
    record(d, "omni", preset="omni", wall_s=3600, gpus=2, status="ok")
    record(d, "vl", preset="vl", wall_s=3600, gpus=1, status="ok")
    sc = scores([("itch", "omni", K0, 1.0), ("itch", "vl", K0, 1.0)])
    table = cost_table(sc, read_cost_records(d), K0, None, corpus="itch").set_index("preset")
    assert table.at["omni", "gpu_hours"] == pytest.approx(2.0)
    assert table.at["vl", "gpu_hours"] == pytest.approx(1.0)


def test_slurm_accounting_counts_startup_and_idle_allocation() -> None:
    """The runner's wall time starts late and misses idle allocation; sacct's elapsed time of the
    whole job and its granted GPUs replace it once the job has ended."""
    runner = pd.DataFrame(
        [
            {"corpus": "itch", "preset": "m", "condition": K0, "shard": "s0", "wall_s": 3000.0,
             "gpus": 1, "status": "ok", "slurm_job_id": "42"},
            {"corpus": "itch", "preset": "m", "condition": K0, "shard": "s1", "wall_s": 100.0,
             "gpus": 1, "status": "running", "slurm_job_id": "43"},
        ]
    )  # fmt: skip
    jobs = {
        "42": SlurmJob("42", 3600.0, 2, "COMPLETED"),
        "43": SlurmJob("43", 900.0, 1, "TIMEOUT"),
    }
    out = resolve_costs(runner, jobs)
    assert out["wall_s"].tolist() == [3600.0, 900.0] and out["gpus"].tolist() == [2, 1]
    (row,) = cost_table(scores([("itch", "m", K0, 1.0)]), out, K0, None).to_dict("records")
    assert row["gpu_hours"] == pytest.approx((3600 * 2 + 900) / 3600)


def test_judging_is_costed_apart(tmp_path: Path) -> None:
    play, judge = tmp_path / "costs", tmp_path / "judge_costs" / "qwen3.5-9b"
    record(play, "p", wall_s=3600, status="ok")
    fields = {"judge": "qwen3.5-9b", "corpus": "itch", "preset": "m", "condition": K0,
              "shard": "s0000", "gpus": 1, "prefetch": "",
              "max_num_batched_tokens": 32768}  # fmt: skip
    judge.mkdir(parents=True)
    CostRecord(judge / "s0000.tsv", fields, columns=JUDGE_COLUMNS).start().finish("ok")
    jc = read_cost_records(judge)
    jc.loc[:, "wall_s"] = 1800.0
    extra = jc.assign(status="killed")  # a killed judge attempt counts as well
    jc = pd.concat([jc, extra], ignore_index=True)
    sc = scores([("itch", "m", K0, 1.0)] * 3 + [("itch", "m", K0, None)])
    sc["judge"] = "qwen3.5-9b"
    (row,) = cost_table(sc, read_cost_records(play), K0, None).to_dict("records")
    assert row["gpu_hours"] == pytest.approx(1.0)  # judge time not in the play figure
    (j,) = judge_cost_table(jc, sc).to_dict("records")
    assert j["judge"] == "qwen3.5-9b" and j["jobs"] == 2 and j["killed_jobs"] == 1
    assert j["gpu_hours"] == pytest.approx(1.0) and j["judged_videos"] == 3
    assert j["videos_per_gpu_hour"] == pytest.approx(3.0)
    assert j["gpu_hours_per_1k_videos"] == pytest.approx(1000 / 3)
    empty = judge_cost_table(read_cost_records(tmp_path / "none"), sc)
    assert len(empty) == 1 and np.isnan(empty.at[0, "gpu_hours"])  # unknown, not free


def test_campaign_comes_from_the_analysis_section() -> None:
    s = analysis_settings({"analysis": {"cost": {"corpus": "itch"}}})
    assert (s.cost_corpus, s.cost_condition) == ("itch", K0)
    s = analysis_settings({"analysis": {"cost": {"condition": K3}}})
    assert (s.cost_corpus, s.cost_condition) == (None, K3)
    assert s.judge_costs == "results/judge_costs"
