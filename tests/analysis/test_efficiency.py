"""Figure 10's inputs: launch test rows, worker sweep throughput, judge throughput from records."""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from playsuite.analysis import figures
from playsuite.analysis.cost import read_cost_records
from playsuite.analysis.efficiency import (
    EfficiencySettings,
    judge_setting,
    judge_throughput,
    manifest_unit,
    read_benchmarks,
    throughput_table,
)
from playsuite.corpus import GameEntry
from playsuite.harness.costs import JUDGE_COLUMNS, CostRecord
from playsuite.runtimes.launchtest import launch_test, sample_games

K0 = "k0-hz0.33-base"


def game(gid: str, runtime: str = "pygame") -> GameEntry:
    return GameEntry(id=gid, title=gid, source="local", package=".", runtime=runtime, entry="x")


class FakeRuntime:
    """Test double of a runtime: ``start()`` takes the game's configured seconds, or raises."""

    ready_s: ClassVar[dict[str, float]] = {"quick": 0.01, "slow": 0.25}
    closed: ClassVar[list[str]] = []

    def __init__(self, entry: GameEntry, options) -> None:
        self.entry = entry
        self.options = options

    def start(self) -> None:
        if self.entry.id == "broken":
            raise RuntimeError("no window appeared")
        time.sleep(self.ready_s[self.entry.id])

    def close(self) -> None:
        FakeRuntime.closed.append(self.entry.id)


def test_launch_test_times_every_launcher(tmp_path: Path) -> None:
    games = [game("quick"), game("slow"), game("broken")]
    files = {g.id: tmp_path for g in games}
    rows = pd.DataFrame(launch_test(games, files, fixed_wait_s=0.15, make=FakeRuntime))
    assert len(rows) == 9 and FakeRuntime.closed.count("broken") == 3  # closed even on failure
    rows = rows.set_index(["launcher", "game"])
    # the naive launcher waits its fixed interval even when the game is ready earlier ...
    assert rows.at[("fixed", "quick"), "launch_s"] >= 0.15
    assert rows.at[("fixed", "quick"), "ready_s"] < 0.1
    # ... and a game slower than the interval would have been captured before it was ready
    assert rows.at[("fixed", "slow"), "status"] == "late"
    assert rows.at[("polling", "quick"), "launch_s"] < 0.1
    assert rows.at[("polling", "slow"), "launch_s"] >= 0.25
    assert rows.at[("reuse", "broken"), "status"] == "failed"
    assert "no window" in rows.at[("reuse", "broken"), "error"]
    assert np.isnan(rows.at[("polling", "broken"), "launch_s"])


def test_games_are_a_seeded_sample_in_corpus_order() -> None:
    games = [game(f"g{i}") for i in range(20)]
    a, b = sample_games(games, 5, seed=1), sample_games(games, 5, seed=1)
    assert [g.id for g in a] == [g.id for g in b] and len(a) == 5
    assert [g.id for g in a] == sorted((g.id for g in a), key=lambda x: int(x[1:]))
    assert sample_games(games, 50, seed=1) == games


def test_throughput_per_worker_count() -> None:
    costs = pd.DataFrame({"wall_s": [3600.0, 1800.0], "gpus": [1, 1]})
    table = throughput_table(
        [
            (2, ["ok"] * 10 + ["crashed"], costs.iloc[1:]),
            (1, ["ok"] * 6, costs.iloc[:1]),
        ]
    )
    assert table["workers"].tolist() == [1, 2]
    assert table["evaluations_per_gpu_hour"].tolist() == pytest.approx([6.0, 20.0])
    cpu = throughput_table([(1, ["ok"] * 3, pd.DataFrame({"wall_s": [1800.0], "gpus": [0]}))])
    assert cpu.at[0, "episodes_per_hour"] == pytest.approx(6.0)
    assert np.isnan(cpu.at[0, "evaluations_per_gpu_hour"])  # no GPU: undefined, not infinite


def write_manifest(path: Path, statuses: list[str]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        {"game": f"g{i}", "status": s, "level": 1, "judgement": "", "episode_dir": "", "error": ""}
        for i, s in enumerate(statuses)
    ]
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)
    return str(path)


def test_judge_throughput_from_records_and_manifests(tmp_path: Path) -> None:
    records = tmp_path / "judge_costs" / "qwen3.5-9b"
    manifests = {}
    for shard, prefetch, statuses in (
        ("s0000", 0, ["ok"] * 4),
        ("s0001", "", ["ok"] * 7 + ["failed"]),
    ):
        fields = {
            "judge": "qwen3.5-9b",
            "corpus": "itch",
            "preset": "m",
            "condition": K0,
            "shard": shard,
            "gpus": 1,
            "prefetch": prefetch,
            "max_num_batched_tokens": 32768,
        }
        stem = records / "itch" / "m" / K0 / f"{shard}.tsv"
        stem.parent.mkdir(parents=True, exist_ok=True)
        CostRecord(stem, fields, columns=JUDGE_COLUMNS).start().finish("ok")
        path = tmp_path / "judgements/qwen3.5-9b/itch/m" / K0 / "shards" / f"{shard}.tsv"
        manifests[manifest_unit(path)] = write_manifest(path, statuses)
    costs = read_cost_records(records)
    costs["wall_s"] = 1800.0  # half an hour per attempt
    killed = costs[costs["shard"] == "s0001"].assign(status="killed", wall_s=900.0)
    costs = pd.concat([costs, killed], ignore_index=True)  # a killed attempt of the second shard
    table = judge_throughput(costs, manifests).set_index("setting")
    off = judge_setting(0, 32768)
    on = judge_setting("", 32768)
    assert off == "prefetch off, batched tokens 32768"
    assert on == "prefetch on, batched tokens 32768"
    assert table.at[off, "videos"] == 4 and table.at[off, "videos_per_gpu_hour"] == pytest.approx(8)
    assert table.at[on, "videos"] == 7 and table.at[on, "shards"] == 1
    assert table.at[on, "gpu_hours"] == pytest.approx(0.75)  # the killed attempt's time counts
    assert table.at[on, "videos_per_gpu_hour"] == pytest.approx(7 / 0.75)
    assert judge_throughput(costs.iloc[0:0], {}).empty
    with pytest.raises(ValueError, match="not a judge shard manifest"):
        manifest_unit("results/scores/frame.tsv")


def test_settings_and_figure(tmp_path: Path) -> None:
    s = EfficiencySettings.from_config(
        {
            "seed": 3,
            "analysis": {
                "efficiency": {
                    "corpus": "itch",
                    "launch": True,
                    "concurrency": {"preset": "qwen3-vl-8b", "workers": [1, 8]},
                    "judge": "qwen3.5-9b",
                }
            },
        }
    )
    assert (s.corpus, s.games, s.seed, s.fixed_wait_s) == ("itch", 50, 3, 90.0)
    assert s.concurrency.workers == (1, 8) and s.concurrency.condition == K0
    assert s.needs_games() and not EfficiencySettings.from_config({}).needs_games()
    pd.DataFrame(
        {
            "game": ["a", "a", "a"],
            "runtime": "browser",
            "launcher": ["fixed", "polling", "reuse"],
            "launch_s": [90.0, 9.0, 2.0],
            "status": "ok",
        }
    ).to_csv(tmp_path / "launch.tsv", sep="\t", index=False)
    throughput_table([(1, ["ok"], pd.DataFrame({"wall_s": [60.0], "gpus": [1]}))]).to_csv(
        tmp_path / "throughput.tsv", sep="\t", index=False
    )
    pd.DataFrame(
        {"setting": ["prefetch off, batched tokens 8192"], "videos_per_hour": [1.0],
         "videos_per_gpu_hour": [2.0]}
    ).to_csv(tmp_path / "judge.tsv", sep="\t", index=False)  # fmt: skip
    fig = figures.efficiency_figure(read_benchmarks(tmp_path))
    figures.save_figure(fig, tmp_path / "e.pdf", tmp_path / "e.png")
    assert (tmp_path / "e.png").read_bytes()[:4] == b"\x89PNG"
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["fixed", "polling", "reuse"]
    assert fig.axes[1].get_ylabel() == "evaluations per GPU-hour"
