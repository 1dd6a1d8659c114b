"""SR and PG on state-verified tasks from a small synthetic results tree."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.settings import analysis_settings
from playsuite.analysis.tasks import sr_pg_table, task_runs
from playsuite.config import load_yaml
from playsuite.judge.tasks import Task
from playsuite.planning.analysis_jobs import tasks_job
from playsuite.records.scores import scores_frame, write_scores

COND = "k0-hz0.33-base"
SPEC = BootstrapSpec(resamples=200, seed=1)
#: (game, genre, preset) -> recorded score values; every game's task: score from 0 to 10.
EPISODES = {
    ("a", "Action", "m1"): [0, 10],  # success
    ("a", "Action", "m2"): [0, 5],  # half way
    ("b", "Puzzle", "m1"): [0, 2],
    ("b", "Puzzle", "m2"): [0, 0],
    ("c", "Puzzle", "m1"): None,  # the trace records no probes: unmeasured
    ("c", "Puzzle", "m2"): [0, 10],
}


def write_tree(root: Path) -> Path:
    rows = []
    for (game, genre, preset), values in EPISODES.items():
        ep = root / "runs" / "local" / preset / COND / game
        ep.mkdir(parents=True)
        (ep / "meta.json").write_text(json.dumps({"status": "ok"}))
        steps = [
            {"t_game": float(i), "actions": [], **({"probes": {"score": v}} if values else {})}
            for i, v in enumerate(values or [0, 0])
        ]
        (ep / "trace.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
        rows.append(
            {
                "corpus": "local",
                "preset": preset,
                "family": "baseline",
                "condition": COND,
                "history_k": 0,
                "hz": 0.33,
                "variant": "base",
                "game": game,
                "genre": genre,
                "judge": "frame",
                "level": 1,
                "status": "ok",
            }
        )
    # A crashed episode never counts, even with a trace that reached the target.
    rows.append({**rows[1], "preset": "m3", "status": "play_failed", "level": None})
    write_scores(scores_frame(rows), root / "scores.tsv")
    return root


def tasks() -> dict[str, list[Task]]:
    row = {"name": "score_10", "instruction": "Score 10.", "probe": "score", "target": 10}
    return {f"local/{g}": [Task.of(g, row)] for g in "abc"}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path)


def test_task_runs_follow_the_valid_episodes(tree: Path) -> None:
    from playsuite.analysis.scores import read_scores

    runs = task_runs(read_scores(tree / "scores.tsv"), tree / "runs", tasks())
    assert len(runs) == 6
    got = runs.set_index(["game", "preset"])["progress"]
    assert got[("a", "m1")] == 1.0
    assert got[("a", "m2")] == 0.5
    assert got[("b", "m1")] == pytest.approx(0.2)
    assert pd.isna(got[("c", "m1")])


def test_sr_pg_per_model_genre_and_corpus(tree: Path) -> None:
    from playsuite.analysis.scores import read_scores

    runs = task_runs(read_scores(tree / "scores.tsv"), tree / "runs", tasks())
    table = sr_pg_table(runs, SPEC).set_index(["scope", "group"])
    # m1: a 1.0 (success), b 0.2; c unmeasured.
    m1 = table.loc[("model", "m1")]
    assert m1["SR (%)"] == pytest.approx(50.0)
    assert m1["PG (%)"] == pytest.approx(60.0)
    assert (m1["task runs"], m1["unmeasured"], m1["games"]) == (2, 1, 2)
    m2 = table.loc[("model", "m2")]
    assert m2["SR (%)"] == pytest.approx(100 / 3)
    assert m2["PG (%)"] == pytest.approx(50.0)
    puzzle = table.loc[("genre", "Puzzle")]  # b m1 0.2, b m2 0, c m2 1 (success)
    assert puzzle["PG (%)"] == pytest.approx(40.0)
    assert puzzle["SR (%)"] == pytest.approx(100 / 3)
    everything = table.loc[("corpus", "all")]
    assert everything["PG (%)"] == pytest.approx(54.0)
    assert everything["SR (%)"] == pytest.approx(40.0)
    assert everything["task runs"] == 5
    for _, row in table.iterrows():
        for stat in ("SR (%)", "PG (%)"):
            assert row[f"{stat} low"] <= row[stat] + 1e-9 <= row[f"{stat} high"] + 2e-9


def test_the_job_writes_table_markdown_and_figure(tree: Path, tmp_path: Path) -> None:
    game = {
        "id": "a",
        "title": "A",
        "source": "local",
        "package": "a",
        "runtime": "pygame",
        "entry": "main.py",
        "genre": "Action",
        "probes": {"score": "s"},
        "tasks": [{"name": "score_10", "instruction": "Score 10.", "probe": "score", "target": 10}],
    }
    corpus = tmp_path / "corpus.yaml"
    corpus.write_text(yaml.safe_dump({"games": [game]}))
    out = {
        "runs": tmp_path / "out/task_runs.tsv",
        "tsv": tmp_path / "out/tasks.tsv",
        "md": tmp_path / "out/tasks.md",
        "pdf": tmp_path / "out/tasks.pdf",
        "png": tmp_path / "out/tasks.png",
    }
    config = load_yaml(Path(__file__).parents[2] / "config/config.yaml")
    tasks_job(
        str(tree / "scores.tsv"),
        str(tree / "runs"),
        {"local": str(corpus)},
        analysis_settings(config),
        {k: str(v) for k, v in out.items()},
    )
    table = pd.read_csv(out["tsv"], sep="\t")
    assert set(table["scope"]) == {"model", "genre", "corpus"}
    assert table.loc[table["group"] == "all", "PG (%)"].item() == pytest.approx(75.0)
    assert "| SR (%) |" in out["md"].read_text()
    assert out["png"].stat().st_size > 0 and out["pdf"].stat().st_size > 0
    assert len(pd.read_csv(out["runs"], sep="\t")) == 2
