"""Latency against progress (playsuite.analysis.realtime): a synthetic results tree, then real
episodes of a local game played paused and in real time with a baseline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from playsuite.analysis.realtime import paused_counterpart
from playsuite.analysis.settings import analysis_settings
from playsuite.config import load_yaml
from playsuite.planning.analysis_jobs import tasks_job
from playsuite.planning.realtime_jobs import realtime_job
from playsuite.records.episode import read_meta
from playsuite.records.scores import scores_frame, write_scores

REPO = Path(__file__).resolve().parents[2]
PAUSED = "k0-hz1-base"
REAL = "k0-hz1-base+play.realtime=true"
TASK = {"name": "score_10", "instruction": "Score 10.", "probe": "score", "target": 10}


def score_row(preset: str, condition: str, game: str) -> dict:
    return {
        "corpus": "local",
        "preset": preset,
        "family": "baseline",
        "condition": condition,
        "history_k": 0,
        "hz": 1.0,
        "variant": "base",
        "game": game,
        "genre": "Action",
        "judge": "frame",
        "level": 1,
        "status": "ok",
    }


def write_episode(root: Path, preset: str, condition: str, think: float, scores: list) -> None:
    """Four 1 s steps; in real time each first plays ``think`` s of game time."""
    realtime = condition == REAL
    ep = root / "runs" / "local" / preset / condition / "a"
    ep.mkdir(parents=True)
    steps = []
    for i, score in enumerate(scores):
        step = {"step": i, "t_game": float(i), "actions": [], "probes": {"score": score}}
        step["latency_s"] = think
        if realtime:
            step |= {"think_s": think, "think_game_s": think}
        steps.append(step)
    t_game = len(scores) * (1 + (think if realtime else 0))
    meta = {"status": "ok", "t_game": t_game, "protocol": {"realtime": realtime}}
    (ep / "meta.json").write_text(json.dumps(meta))
    (ep / "trace.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))


def run_jobs(root: Path, corpus: Path, rows: list[dict]) -> pd.DataFrame:
    write_scores(scores_frame(rows), root / "scores.tsv")
    out = {k: str(root / "out" / f"{k}.{ext}") for k, ext in [("runs", "tsv"), ("tsv", "tsv")]}
    out |= {"md": str(root / "out/tasks.md"), "pdf": str(root / "out/t.pdf")}
    out["png"] = str(root / "out/t.png")
    config = load_yaml(REPO / "config/config.yaml")
    tasks_job(
        str(root / "scores.tsv"),
        str(root / "runs"),
        {"local": str(corpus)},
        analysis_settings(config),
        out,
    )
    rt = {"tsv": str(root / "out/realtime.tsv"), "md": str(root / "out/realtime.md")}
    realtime_job(out["runs"], out["tsv"], str(root / "runs"), rt)
    assert Path(rt["md"]).read_text().strip()
    return pd.read_csv(rt["tsv"], sep="\t")


def corpus_of(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "corpus.yaml"
    path.write_text(yaml.safe_dump({"games": rows}))
    return path


def test_the_paused_counterpart_drops_only_the_real_time_setting() -> None:
    assert paused_counterpart(REAL) == PAUSED
    both = "k3-hz3-base+play.action_budget=100+play.realtime=true"
    assert paused_counterpart(both) == "k3-hz3-base+play.action_budget=100"


@pytest.mark.slow
def test_a_slow_model_loses_more_progress_in_real_time(tmp_path: Path) -> None:
    game = {
        "id": "a",
        "title": "A",
        "source": "local",
        "package": "a",
        "runtime": "pygame",
        "entry": "main.py",
        "genre": "Action",
        "probes": {"score": "s"},
        "tasks": [TASK],
    }
    # paused, both models reach 10; in real time the fast one 8, the slow one 2
    write_episode(tmp_path, "fast", PAUSED, 0.1, [0, 4, 8, 10])
    write_episode(tmp_path, "slow", PAUSED, 2.0, [0, 4, 8, 10])
    write_episode(tmp_path, "fast", REAL, 0.1, [0, 3, 6, 8])
    write_episode(tmp_path, "slow", REAL, 2.0, [0, 1, 2, 2])
    rows = [score_row(p, c, "a") for p in ("fast", "slow") for c in (PAUSED, REAL)]
    table = run_jobs(tmp_path, corpus_of(tmp_path, [game]), rows).set_index("model")

    assert list(table.index) == ["fast", "slow"] and set(table["condition"]) == {REAL}
    assert table.loc["fast", "latency s/step"] == pytest.approx(0.1)
    assert table.loc["slow", "latency s/step"] == pytest.approx(2.0)
    assert table.loc["slow", "thinking game s/step"] == pytest.approx(2.0)
    assert table.loc["slow", "thinking share (%)"] == pytest.approx(200 / 3)
    assert table.loc["fast", "thinking share (%)"] == pytest.approx(100 * 0.1 / 1.1)
    assert table.loc["fast", "PG (%)"] == pytest.approx(80.0)
    assert table.loc["slow", "PG (%)"] == pytest.approx(20.0)
    assert (table["paused condition"] == PAUSED).all()
    assert (table["PG paused (%)"] == 100.0).all()
    assert table.loc["slow", "PG change (pp)"] == pytest.approx(-80.0)
    assert table.loc["fast", "SR (%)"] == 0.0


def test_no_real_time_condition_makes_an_empty_table(tmp_path: Path) -> None:
    game = {"id": "a", "title": "A", "source": "local", "package": "a", "runtime": "pygame"}
    game |= {"entry": "main.py", "genre": "Action", "probes": {"score": "s"}, "tasks": [TASK]}
    write_episode(tmp_path, "fast", PAUSED, 0.1, [0, 4])
    table = run_jobs(tmp_path, corpus_of(tmp_path, [game]), [score_row("fast", PAUSED, "a")])
    assert table.empty and "PG change (pp)" in table.columns


@pytest.mark.games
@pytest.mark.slow
def test_real_episodes_of_a_local_game_paused_and_in_real_time(tmp_path: Path) -> None:
    """Funny Boat played with the random baseline under both protocols by `playsuite play`; the
    table reads the episodes' own protocol and thinking times."""
    playsuite = str(Path(sys.executable).with_name("playsuite"))
    games = REPO / "results" / "test-cache" / "games"
    paused = "k0-hz3-base+play.action_budget=6"
    conditions = (paused, paused + "+play.realtime=true")
    for condition in conditions:
        out = tmp_path / "runs" / "local" / "random" / condition / "funnyboat"
        done = subprocess.run(
            [
                *(playsuite, "play", "--game", "funnyboat", "--agent", "random"),
                *("--condition", condition, "--out", str(out), "--games-dir", str(games)),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=REPO,
        )
        assert done.returncode == 0, done.stderr
        assert read_meta(out)["protocol"]["realtime"] is condition.endswith("true")
    rows = [score_row("random", c, "funnyboat") for c in conditions]
    table = run_jobs(tmp_path, REPO / "config/corpora/local.yaml", rows)
    assert len(table) == 1, table
    row = table.iloc[0]
    assert row["condition"] == conditions[1] and row["paused condition"] == conditions[0]
    assert row["episodes"] == 1 and row["steps"] == 6
    assert 0 <= row["latency s/step"] < 1.0  # a baseline answers at once
    assert 0 <= row["PG (%)"] <= 100 and 0 <= row["PG paused (%)"] <= 100
    assert row["PG change (pp)"] == pytest.approx(row["PG (%)"] - row["PG paused (%)"])
