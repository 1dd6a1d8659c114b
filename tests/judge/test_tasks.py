"""GameWorld's progress and success from recorded probe values (playsuite.judge.tasks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from playsuite.config import ConfigError
from playsuite.corpus import GameEntry, load_corpus
from playsuite.judge.episode import Step, load_episode
from playsuite.judge.tasks import Task, episode_outcomes, game_tasks, task_outcome
from playsuite.testing.synthetic_episode import idle_script, playing_script, write_episode


def steps(*probes: dict[str, Any] | None) -> list[Step]:
    return [
        Step(step=i, t_game=float(i), actions=(), probes=p if p is not None else {})
        for i, p in enumerate(probes)
    ]


def task(probe: str, target: float, baseline: float | None = None) -> Task:
    row = {"name": "t", "instruction": "do it", "probe": probe, "target": target}
    if baseline is not None:
        row["baseline"] = baseline
    return Task.of("g", row)


def test_increasing_target_uses_the_best_value_and_the_first_value_as_baseline() -> None:
    out = task_outcome(task("score", 40), steps({"score": 10}, {"score": 25}, {"score": 20}))
    assert out.baseline == 10
    assert out.best == 25
    assert out.progress == pytest.approx(0.5)
    assert out.success is False
    assert out.observed == 3


def test_reaching_the_target_is_success_and_progress_is_clipped_to_one() -> None:
    out = task_outcome(task("score", 40), steps({"score": 10}, {"score": 90}))
    assert out.progress == 1.0
    assert out.success is True


def test_a_value_below_the_baseline_clips_to_zero() -> None:
    out = task_outcome(task("score", 40, baseline=10), steps({"score": 5}, {"score": 8}))
    assert out.progress == 0.0
    assert out.success is False


def test_decreasing_target_uses_the_lowest_value() -> None:
    t = task("lives", 1)
    out = task_outcome(t, steps({"lives": 3}, {"lives": 2}, {"lives": 3}))
    assert out.best == 2
    assert out.progress == pytest.approx(0.5)
    assert out.success is False
    done = task_outcome(t, steps({"lives": 3}, {"lives": 0}))
    assert done.progress == 1.0
    assert done.success is True


def test_expressions_combine_probes_and_booleans_count_as_numbers() -> None:
    t = task("won and not game_over", 1, baseline=0)
    assert task_outcome(t, steps({"won": False, "game_over": False})).progress == 0.0
    out = task_outcome(t, steps({"won": False, "game_over": False}, {"won": True, "game_over": 0}))
    assert (out.progress, out.success) == (1.0, True)
    arithmetic = task("score + 10 * level", 50, baseline=0)
    assert task_outcome(arithmetic, steps({"score": 5, "level": 2})).progress == 0.5


def test_null_values_are_skipped_and_the_baseline_is_the_first_recorded_value() -> None:
    out = task_outcome(
        task("score", 20), steps({"score": None}, {"score": 10}, {"score": None}, {"score": 15})
    )
    assert out.baseline == 10
    assert out.progress == pytest.approx(0.5)
    assert out.observed == 2


def test_probes_never_recorded_leave_the_task_unmeasured() -> None:
    out = task_outcome(task("score", 20, baseline=0), steps(None, {"level": 1}))
    assert out.progress is None and out.success is None
    assert not out.measured


def test_probes_recorded_without_a_value_are_no_progress() -> None:
    out = task_outcome(task("score", 20, baseline=0), steps({"score": None}, {"score": None}))
    assert (out.progress, out.success) == (0.0, False)
    assert out.measured


def test_first_value_at_the_target_is_success() -> None:
    out = task_outcome(task("level", 1), steps({"level": 1}))
    assert (out.progress, out.success) == (1.0, True)


def test_calls_and_attributes_are_refused() -> None:
    with pytest.raises(ConfigError, match="Call"):
        task("max(score, 1)", 2)
    with pytest.raises(ConfigError, match="Attribute"):
        task("score.real", 2)


def test_outcomes_of_a_recorded_episode(tmp_path: Path) -> None:
    """The synthetic game's trace records score and level as a runtime does."""
    tasks = [task("score", 10, baseline=0), task("level", 2)]
    played = load_episode(write_episode(tmp_path / "runs/c/p/k/toy", playing_script()))
    idle = load_episode(write_episode(tmp_path / "runs/c/p/k/idle", idle_script()))
    scores = [s.probes["score"] for s in played.steps]
    assert max(scores) > 0, "the scripted episode should score"
    got = episode_outcomes(played, tasks)[0]
    assert got.progress == pytest.approx(min(max(scores) / 10, 1.0))
    assert episode_outcomes(idle, tasks)[0].progress == 0.0


def _row(**extra: Any) -> dict[str, Any]:
    return {
        "id": "g",
        "title": "G",
        "source": "local",
        "package": "g",
        "runtime": "pygame",
        "entry": "main.py",
        "probes": {"score": "s", "lives": "l"},
        **extra,
    }


def _corpus(tmp_path: Path, **extra: Any) -> Path:
    import yaml

    path = tmp_path / "corpus.yaml"
    path.write_text(yaml.safe_dump({"games": [_row(**extra)]}))
    return path


GOOD = {"name": "score_10", "instruction": "Score 10 points.", "probe": "score", "target": 10}


def test_a_corpus_row_declares_tasks(tmp_path: Path) -> None:
    (game,) = load_corpus(_corpus(tmp_path, tasks=[GOOD, {**GOOD, "name": "x", "baseline": 3}]))
    tasks = game_tasks(game)
    assert [t.name for t in tasks] == ["score_10", "x"]
    assert tasks[0].baseline is None and tasks[1].baseline == 3.0


@pytest.mark.parametrize(
    ("task_row", "message"),
    [
        ({k: v for k, v in GOOD.items() if k != "target"}, "'target' is a required property"),
        ({**GOOD, "target": "ten"}, "is not of type 'number'"),
        ({**GOOD, "name": "Bad Name"}, "does not match"),
        ({**GOOD, "when": 3}, "Additional properties"),
        ({**GOOD, "probe": "coins"}, "unknown probe"),
        ({**GOOD, "probe": "score +"}, "is not an expression"),
        ({**GOOD, "baseline": 10}, "baseline equals target"),
    ],
)
def test_a_bad_task_is_refused(tmp_path: Path, task_row: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_corpus(_corpus(tmp_path, tasks=[task_row]))


def test_duplicate_task_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="duplicate task name"):
        load_corpus(_corpus(tmp_path, tasks=[GOOD, GOOD]))


def test_tasks_survive_the_curated_tsv(tmp_path: Path) -> None:
    from playsuite.corpus import write_corpus_tsv

    game = GameEntry.from_dict(_row(tasks=[GOOD]))
    write_corpus_tsv([game], tmp_path / "games.tsv")
    (back,) = load_corpus(tmp_path / "games.tsv")
    assert back.tasks == game.tasks
