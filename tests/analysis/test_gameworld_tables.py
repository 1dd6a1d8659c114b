"""GameWorld's comparisons from a small synthetic results tree: judge against state, memory and
interface tables, the invalid rate in the main table, task runs of a task condition."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from playsuite.analysis.agent_settings import (
    episode_costs,
    episode_counts,
    interface_table,
    memory_table,
    paired_condition,
)
from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.judge_state import (
    agreement_table,
    confusion_table,
    paired_runs,
    spearman_ci,
)
from playsuite.analysis.main_results import main_results, rate_columns
from playsuite.analysis.settings import analysis_settings
from playsuite.analysis.tasks import task_runs
from playsuite.config import load_yaml
from playsuite.judge.tasks import Task
from playsuite.planning.analysis_jobs import (
    agent_settings_job,
    judge_state_job,
    main_results_job,
)
from playsuite.records.scores import scores_frame, write_scores

SPEC = BootstrapSpec(resamples=300, seed=3)
TEXT = "k0-hz0.33-base"
TOOLS = "k0-hz0.33-base+agent.interface=tools"
MEMORY = "k0-hz0.33-base+agent.memory_rounds=2"
WITH = "k3-hz0.33-base"
GAMES = [f"g{i}" for i in range(8)]


def score_row(preset: str, condition: str, game: str, level: int, status: str = "ok") -> dict:
    return {
        "corpus": "local",
        "preset": preset,
        "family": "VLM",
        "condition": condition,
        "history_k": int(condition[1]),
        "hz": 0.33,
        "variant": "base",
        "game": game,
        "genre": "Action",
        "judge": "frame",
        "level": level,
        "status": status,
    }


def write_episode(root: Path, row: dict, steps: int, invalid: int, tokens: int, latency: float):
    ep = root / "runs" / row["corpus"] / row["preset"] / row["condition"] / row["game"]
    ep.mkdir(parents=True)
    meta = {"status": row["status"], "steps": steps, "invalid_steps": invalid}
    (ep / "meta.json").write_text(json.dumps(meta))
    lines = [
        {
            "t_game": 3.0 * i,
            "invalid": i < invalid,
            "latency_s": latency,
            "info": {"usage": {"prompt_tokens": tokens + 10 * i}},
        }
        for i in range(steps)
    ]
    (ep / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    """m1 plays every condition on every game: the tool interface one level better, twice the
    invalid answers under text, and memory rounds cost more tokens and time per step."""
    rows = []
    for i, game in enumerate(GAMES):
        level = i % 3
        for cond, lvl, invalid, tokens, latency in (
            (TEXT, level, 2, 1000, 1.0),
            (TOOLS, level + 1, 1, 800, 0.5),
            (MEMORY, level, 2, 3000, 2.0),
            (WITH, level, 0, 1500, 1.0),
        ):
            row = score_row("m1", cond, game, lvl)
            rows.append(row)
            write_episode(tmp_path, row, steps=4, invalid=invalid, tokens=tokens, latency=latency)
    crashed = score_row("m1", TEXT, "g9", 0, status="crashed")  # never counts
    rows.append({**crashed, "level": None})
    missing = score_row("m1", TOOLS, "g9", 4)  # scored, but its episode folder is gone
    rows.append(missing)
    scores = scores_frame(rows)
    write_scores(scores, tmp_path / "scores.tsv")
    return tmp_path, scores


def test_memory_table_tables_tokens_and_latency_per_round(tree) -> None:
    root, scores = tree
    costs = episode_costs(scores, root / "runs")
    table = memory_table(costs).set_index("condition")
    assert table.loc[MEMORY, "memory rounds"] == 2 and table.loc[TEXT, "memory rounds"] == 0
    assert table.loc[MEMORY, "input tokens/step"] == pytest.approx(3015.0)  # 3000 + mean(0..30)
    assert table.loc[TEXT, "input tokens/step"] == pytest.approx(1015.0)
    assert table.loc[MEMORY, "latency s/step"] == pytest.approx(2.0)
    assert table.loc[TEXT, "invalid (%)"] == pytest.approx(50.0)
    assert table.loc[TOOLS, "interface"] == "tools" and table.loc[TOOLS, "unread"] == 1
    assert table.loc[TOOLS, "episodes"] == 9 and table.loc[TEXT, "episodes"] == 8


def test_interface_table_sets_tools_against_text_on_the_same_games(tree) -> None:
    root, scores = tree
    table = interface_table(episode_costs(scores, root / "runs"), None, SPEC)
    (row,) = table.to_dict("records")
    assert row["condition"] == TEXT == paired_condition(TOOLS) and row["games"] == 8
    assert row["tools - text"] == pytest.approx(1.0)
    assert row["tools - text low"] == pytest.approx(1.0) == row["tools - text high"]
    assert row["text invalid (%)"] == pytest.approx(50.0)
    assert row["tools invalid (%)"] == pytest.approx(25.0)
    assert math.isnan(row["text PG (%)"])  # no task runs given


def test_main_table_shows_the_invalid_rate_of_each_condition(tree) -> None:
    root, scores = tree
    counts = episode_counts(scores, root / "runs")
    table = main_results(scores, WITH, TEXT, SPEC, counts)
    assert rate_columns(table) == ["local invalid k=3 (%)", "local invalid k=0 (%)"]
    assert table.loc[0, "local invalid k=0 (%)"] == pytest.approx(50.0)
    assert table.loc[0, "local invalid k=3 (%)"] == pytest.approx(0.0)
    assert rate_columns(main_results(scores, WITH, TEXT, SPEC)) == []


def test_the_jobs_write_their_tables(tree) -> None:
    root, _ = tree
    settings = analysis_settings(
        {**load_yaml("config/config.yaml"), "analysis": {"bootstrap": {"resamples": 100}}}
    )
    out = {k: str(root / f"main.{k}") for k in ("csv", "md", "tex")}
    main_results_job(str(root / "scores.tsv"), settings, out, runs=str(root / "runs"))
    assert "invalid k=0 (%)" in (root / "main.md").read_text()
    main_results_job(str(root / "scores.tsv"), settings, out, runs=str(root / "nowhere"))
    assert "invalid" not in (root / "main.md").read_text()
    names = ("memory_tsv", "memory_md", "interfaces_tsv", "interfaces_md")
    out = {k: str(root / k) for k in names}
    agent_settings_job(str(root / "scores.tsv"), str(root / "runs"), None, settings, out)
    memory = pd.read_csv(out["memory_tsv"], sep="\t")
    assert sorted(memory["memory rounds"]) == [0, 0, 0, 2]
    assert "tools - text" in Path(out["interfaces_md"]).read_text()


# --- judge against state -----------------------------------------------------------------------


def planted_runs(noise: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scores and task runs in which the level follows progress (exactly, or not at all)."""
    rng = np.random.default_rng(0)
    scores, runs = [], []
    for g in range(12):
        for p in ("m1", "m2", "m3"):
            progress = rng.uniform()
            level = int(rng.integers(0, 5)) if noise else min(4, int(progress * 5))
            scores.append(score_row(p, TEXT, f"g{g}", level))
            runs.append(
                {
                    "corpus": "local",
                    "preset": p,
                    "condition": TEXT,
                    "game": f"g{g}",
                    "task": "t",
                    "progress": progress,
                    "success": float(progress > 0.8),
                }
            )
    runs.append({**runs[0], "game": "g0", "task": "u", "progress": np.nan, "success": np.nan})
    return scores_frame(scores), pd.DataFrame(runs)


def test_a_judge_that_follows_the_state_agrees_and_one_that_guesses_does_not() -> None:
    scores, runs = planted_runs(noise=False)
    paired = paired_runs(scores, runs)
    assert len(paired) == 36  # the unmeasured task run is left out
    (row,) = agreement_table(paired, SPEC).to_dict("records")
    assert row["judge"] == "frame" and row["games"] == 12 and row["task runs"] == 36
    assert row["spearman progress"] > 0.95 and row["spearman progress low"] > 0.9
    assert row["spearman success"] > 0.5
    scores, runs = planted_runs(noise=True)
    rho, low, high = spearman_ci(paired_runs(scores, runs), "progress", SPEC)
    assert abs(rho) < 0.4 and low < 0 < high


def test_confusion_counts_success_per_level() -> None:
    scores, runs = planted_runs(noise=False)
    table = confusion_table(paired_runs(scores, runs))
    assert list(table["level"]) == [0, 1, 2, 3, 4]
    assert table["task runs"].sum() == 36
    assert (table["failed"] + table["succeeded"] == table["task runs"]).all()
    top = table.set_index("level").loc[4]
    assert top["succeeded"] > 0 and table.set_index("level").loc[0, "succeeded"] == 0


def test_judge_state_job_writes_both_tables(tmp_path: Path) -> None:
    scores, runs = planted_runs(noise=False)
    write_scores(scores, tmp_path / "scores.tsv")
    runs.to_csv(tmp_path / "task_runs.tsv", sep="\t", index=False)
    out = {k: str(tmp_path / k) for k in ("tsv", "md", "confusion_tsv", "confusion_md")}
    settings = analysis_settings(
        {**load_yaml("config/config.yaml"), "analysis": {"bootstrap": {"resamples": 100}}}
    )
    judge_state_job(str(tmp_path / "scores.tsv"), str(tmp_path / "task_runs.tsv"), settings, out)
    table = pd.read_csv(out["tsv"], sep="\t")
    assert table.loc[0, "spearman progress"] > 0.95
    assert "succeeded" in Path(out["confusion_md"]).read_text()
    (tmp_path / "empty.tsv").write_text("")
    judge_state_job(str(tmp_path / "scores.tsv"), str(tmp_path / "empty.tsv"), settings, out)
    assert Path(out["md"]).read_text() == "(no data)\n"


# --- task runs of a task condition -------------------------------------------------------------


def test_a_task_condition_scores_its_own_task_alone(tmp_path: Path) -> None:
    tasks = {
        "local/a": [
            Task("a", "first", "Score.", "score", 10.0, 0.0),
            Task("a", "second", "Level.", "level", 2.0, 0.0),
        ]
    }
    rows = []
    for cond in (TEXT, TEXT + "+task.index=1", TEXT + "+task.index=4"):
        row = score_row("m1", cond, "a", 1)
        rows.append(row)
        ep = tmp_path / "runs" / "local" / "m1" / cond / "a"
        ep.mkdir(parents=True)
        (ep / "meta.json").write_text(json.dumps({"status": "ok"}))
        step = {"t_game": 0.0, "probes": {"score": 5, "level": 1}}
        (ep / "trace.jsonl").write_text(json.dumps(step) + "\n")
    runs = task_runs(scores_frame(rows), tmp_path / "runs", tasks)
    by_cond = runs.groupby("condition")["task"].apply(list).to_dict()
    assert by_cond == {TEXT: ["first", "second"], TEXT + "+task.index=1": ["second"]}


def test_a_resamples_spearman_is_that_of_its_replicated_rows() -> None:
    from scipy import stats

    from playsuite.analysis.judge_state import _weighted_pearson, _weighted_ranks

    rng = np.random.default_rng(1)
    x = rng.integers(0, 5, 40).astype(float)  # levels: many ties
    y = np.round(rng.uniform(size=40), 1)  # progress: some ties
    weights = rng.integers(0, 3, (6, 40)).astype(float)
    got = _weighted_pearson(_weighted_ranks(x, weights), _weighted_ranks(y, weights), weights)
    for k in range(6):
        rows = np.repeat(np.arange(40), weights[k].astype(int))
        assert got[k] == pytest.approx(stats.spearmanr(x[rows], y[rows]).statistic, abs=1e-12)


# --- the rules, in real Snakemake --------------------------------------------------------------

RULES = ["task_tables", "judge_state_agreement", "agent_settings_tables", "main_results"]


@pytest.mark.slow
def test_the_rules_build_the_tables_from_episodes(repo_copy: Path) -> None:
    """Scores and episodes of local games with tasks: the judge-vs-state, memory, interface and
    main tables are targets of their own, built from the episodes' traces and metas."""
    import subprocess
    import sys

    work = repo_copy
    rows = []
    rng = np.random.default_rng(2)
    for preset in ("random", "explorer"):
        for cond in (TEXT, TOOLS, WITH):
            for game, probe in (("funnyboat", "score"), ("chrome-dino-runner", "score")):
                row = score_row(preset, cond, game, int(rng.integers(0, 5)))
                rows.append(row)
                write_episode(work / "results", row, steps=4, invalid=1, tokens=900, latency=0.1)
                ep = work / "results/runs/local" / preset / cond / game
                lines = [json.loads(x) for x in (ep / "trace.jsonl").read_text().splitlines()]
                for i, line in enumerate(lines):
                    line["probes"] = {probe: 40 * i * (1 + (preset == "explorer")), "level": 0}
                (ep / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    write_scores(scores_frame(rows), work / "results/scores/frame.tsv")
    targets = [
        "results/tables/frame/judge_state.md",
        "results/tables/frame/judge_state_confusion.md",
        "results/tables/frame/memory.md",
        "results/tables/frame/interfaces.md",
        "results/tables/frame/main.md",
    ]
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    out = subprocess.run(
        [snakemake, "--cores", "2", *targets, "--allowed-rules", *RULES],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    state = pd.read_csv(work / "results/tables/frame/judge_state.tsv", sep="\t")
    assert state.loc[0, "judge"] == "frame" and state.loc[0, "task runs"] > 0
    memory = pd.read_csv(work / "results/tables/frame/memory.tsv", sep="\t")
    assert set(memory["interface"]) == {"text", "tools"} and (memory["PG (%)"] > 0).all()
    assert (memory["input tokens/step"] == 915.0).all()
    interfaces = pd.read_csv(work / "results/tables/frame/interfaces.tsv", sep="\t")
    assert sorted(interfaces["preset"]) == ["explorer", "random"]
    assert (interfaces["games"] == 2).all()
    assert "invalid k=0 (%)" in (work / "results/tables/frame/main.md").read_text()
