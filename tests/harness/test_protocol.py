"""The GameWorld protocol options in the episode loop, on the scripted runtime (milliseconds).

Action budget, reset on fail and real time as the loop plays them: what the runtime is asked,
what the trace and meta.json record, and how task progress reads an episode of several attempts.
The same options on real games are in test_protocol_games.py.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from playsuite.config import Condition, ConfigError
from playsuite.harness import episode as episode_loop
from playsuite.harness.cli import limits_for
from playsuite.harness.episode import (
    EpisodeSpec,
    run_episode,
    settings_changes,
    think_game_seconds,
)
from playsuite.harness.protocol import PlayProtocol, check_condition_protocol, game_over
from playsuite.judge.episode import load_episode
from playsuite.judge.tasks import Task, task_outcome
from playsuite.records.episode import read_meta, read_trace
from playsuite.testing import fakes
from playsuite.testing.fakes import FakeGame, FakePolicy, fake_runtimes

from .test_episode_loop import FPS, RIGHT, spec_for


@pytest.fixture
def thinking_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The episode loop's clock, advanced only by the fake policy's waits: a 0.6 s answer is
    measured as 0.6 s however loaded the machine is (a real sleep of 0.6 s can take a second on
    two busy cores, and the real-time protocol plays what it measures)."""
    now = [1000.0]

    def wait(seconds: float) -> None:
        now[0] += seconds

    clock = SimpleNamespace(perf_counter=lambda: now[0], process_time=time.process_time)
    monkeypatch.setattr(episode_loop, "time", clock)
    monkeypatch.setattr(fakes, "time", SimpleNamespace(sleep=wait))


def with_protocol(spec: EpisodeSpec, **settings: Any) -> EpisodeSpec:
    return dataclasses.replace(spec, protocol=PlayProtocol.from_schema(**settings))


def trace_of(spec: EpisodeSpec) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (spec.out_dir / "trace.jsonl").read_text().splitlines()]


def test_the_schema_default_is_the_paused_protocol_and_a_condition_overrides_it() -> None:
    run = PlayProtocol.from_schema()
    assert run.paused and run.as_dict() == {
        "action_budget": None,
        "reset_on_fail": False,
        "realtime": False,
    }
    name = "k0-hz1-base+play.action_budget=100+play.realtime=true+play.reset_on_fail=true"
    condition = Condition.parse(name)
    assert condition.name == name
    assert run.for_condition(condition) == PlayProtocol(100, True, True)
    # a condition that sets nothing keeps the run's own settings
    own = PlayProtocol(50, True, False)
    assert own.for_condition(Condition.parse("k0-hz1-base")) == own
    with pytest.raises(ConfigError, match=r"play\.action_budget"):
        Condition.parse("k0-hz1-base+play.action_budget=0")
    with pytest.raises(ConfigError, match="not both"):
        check_condition_protocol(Condition.parse("k0-hz1-base+play.action_budget=5+play.steps=3"))


def test_an_action_budget_lifts_the_game_time_caps() -> None:
    paper = limits_for(None, 60.0)
    assert paper["browser"].max_game_s == 300.0 and paper["pygame"].max_frames == 10_000
    budget = limits_for(7, 60.0, action_budget=100)
    for limits in budget.values():
        assert (limits.max_steps, limits.max_game_s, limits.max_frames) == (100, None, None)
        assert limits.wall_timeout_s == 60.0


@pytest.mark.parametrize(
    ("value", "over"),
    [(True, True), (False, False), (None, False), (1, True), (0, False), ("yes", False)],
)
def test_game_over_reads_the_rows_game_over_probe(value: Any, over: bool) -> None:
    assert game_over({"game_over": value, "score": 3}) is over
    assert game_over({"score": 3}) is False and game_over(None) is False


def test_reset_on_fail_relaunches_after_each_game_over_until_the_budget_is_spent(
    tmp_path: Path,
) -> None:
    """The fake game is over after two steps of each launch: 7 steps are 4 attempts."""
    spec = with_protocol(spec_for(tmp_path, max_steps=7), reset_on_fail=True, action_budget=7)
    make, record = fake_runtimes(FakeGame(game_over_at=2))
    meta = run_episode(spec, FakePolicy([RIGHT]), make)

    assert (meta["status"], meta["stop_reason"], meta["steps"]) == ("ok", "steps", 7), meta
    assert record.started == 4 and meta["frames"] == 7 * 4 and meta["t_game"] == 14.0
    assert meta["protocol"] == {"action_budget": 7, "reset_on_fail": True, "realtime": False}
    starts = [(a["step"], a["frame"], a["t_game"], a["end"]) for a in meta["attempts"]]
    assert starts == [
        (0, 0, 0.0, "game_over"),
        (2, 8, 4.0, "game_over"),
        (4, 16, 8.0, "game_over"),
        (6, 24, 12.0, ""),
    ]
    trace = trace_of(spec)
    assert [r["attempt"] for r in trace] == [0, 0, 1, 1, 2, 2, 3]
    # episode game time runs on across relaunches (each new game's clock starts at 0)
    assert [r["t_game"] for r in trace] == [2.0 * n for n in range(7)]
    ends = {r["step"]: r["attempt_end"] for r in trace if "attempt_end" in r}
    assert sorted(ends) == [1, 3, 5]
    assert all(e["probes"]["game_over"] is True for e in ends.values())
    assert [e["t_game"] for e in ends.values()] == [4.0, 8.0, 12.0]
    assert read_meta(spec.out_dir)["attempts"] == meta["attempts"]  # the contract accepts it
    assert len(read_trace(spec.out_dir)) == 7


def test_a_game_over_on_the_last_step_does_not_relaunch(tmp_path: Path) -> None:
    spec = with_protocol(spec_for(tmp_path, max_steps=2), reset_on_fail=True)
    make, record = fake_runtimes(FakeGame(game_over_at=2))
    meta = run_episode(spec, FakePolicy(), make)
    assert record.started == 1 and meta["steps"] == 2
    assert [a["end"] for a in meta["attempts"]] == ["game_over"]


def test_without_reset_on_fail_a_game_over_stands(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=4)
    make, record = fake_runtimes(FakeGame(game_over_at=2))
    meta = run_episode(spec, FakePolicy(), make)
    assert record.started == 1 and meta["steps"] == 4 and "attempts" not in meta
    assert meta["protocol"]["reset_on_fail"] is False
    assert not any("attempt" in r or "attempt_end" in r for r in trace_of(spec))


def test_real_time_plays_the_thinking_time_before_the_actions(
    tmp_path: Path, thinking_clock: None
) -> None:
    """A policy that takes 0.6 s to answer: at 2 fps each step first plays one frame (0.5 s)."""
    spec = with_protocol(spec_for(tmp_path, max_steps=3), realtime=True)
    make, record = fake_runtimes()
    meta = run_episode(spec, FakePolicy([RIGHT], wait_s=0.6), make)

    assert meta["steps"] == 3 and meta["protocol"]["realtime"] is True
    # think slices carry no input; each step's own slice its actions
    assert [(len(a), s) for a, s in record.acts] == [(0, 0.5), (1, 2.0)] * 3
    assert meta["frames"] == 3 * (1 + 4) and meta["t_game"] == 7.5
    trace = trace_of(spec)
    assert all(r["think_game_s"] == 0.5 and r["think_s"] == 0.6 for r in trace)
    # the actions applied after the thinking time: t_game and frame say when
    assert [r["t_game"] for r in trace] == [0.5, 3.0, 5.5]
    assert [r["frame"] for r in trace] == [1, 6, 11]
    # what the model saw was the screen before it thought
    assert [r["probes"]["t"] for r in trace] == [0.0, 2.5, 5.0]


def test_paused_protocol_plays_no_thinking_time(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=2)
    make, record = fake_runtimes()
    run_episode(spec, FakePolicy([RIGHT], wait_s=0.3), make)
    assert [s for _, s in record.acts] == [2.0, 2.0]
    assert not any("think_s" in r for r in trace_of(spec))


def test_think_time_is_rounded_to_video_frames() -> None:
    assert think_game_seconds(0.01, 30.0) == 0.0
    assert think_game_seconds(0.4, 30.0) == pytest.approx(12 / 30)
    assert think_game_seconds(1.26, FPS) == 1.5


def test_task_progress_keeps_the_best_attempt(tmp_path: Path) -> None:
    """Score 40 in the first attempt, 70 in the second (seen only at its game over), 10 in the
    third: progress is the second attempt's, with each attempt's own first value as baseline."""
    spec = with_protocol(spec_for(tmp_path, max_steps=7), reset_on_fail=True)
    make, _ = fake_runtimes(FakeGame(game_over_at=2))
    run_episode(spec, FakePolicy([RIGHT]), make)
    steps = load_episode(spec.out_dir).steps
    assert [s.attempt for s in steps] == [0, 0, 1, 1, 2, 2, 3]
    # the fake's probe "steps" counts acts per launch: 0, 1 (and 2 at the game over) each time
    task = Task("fake-game", "two_steps", "Play two steps.", "steps", target=2)
    outcome = task_outcome(task, steps)
    assert outcome.success and outcome.progress == 1.0 and outcome.best == 2.0

    scores = {0: [0, 40], 1: [5, 20], 2: [10], 3: [0, 5]}
    ends = {0: 40, 1: 70, 2: 10}
    fake = []
    for attempt, values in scores.items():
        for i, value in enumerate(values):
            last = i == len(values) - 1 and attempt in ends
            fake.append(
                dataclasses.replace(
                    steps[0],
                    step=len(fake),
                    t_game=float(len(fake)),
                    probes={"score": value},
                    attempt=attempt,
                    end_probes={"score": ends[attempt]} if last else None,
                )
            )
    free = Task("g", "score_100", "Score 100.", "score", target=100)
    out = task_outcome(free, fake)
    assert (out.baseline, out.best, out.success) == (5.0, 70.0, False)
    assert out.progress == pytest.approx(65 / 95)
    fixed = Task("g", "score_50", "Score 50.", "score", target=50, baseline=0)
    assert task_outcome(fixed, fake).success is True and task_outcome(fixed, fake).best == 70.0


def test_an_episode_played_with_another_protocol_is_not_the_one_asked(tmp_path: Path) -> None:
    """A run whose play.realtime changed keeps the condition's folder: the node runner must see
    that the recorded episode was played otherwise (and replay it)."""
    paused = spec_for(tmp_path, max_steps=1)
    make, _ = fake_runtimes()
    meta = run_episode(paused, FakePolicy(), make)
    assert settings_changes(meta, paused.settings) == []
    real = with_protocol(paused, realtime=True)
    real_change = ["protocol.realtime: played with False, asked True"]
    assert settings_changes(meta, real.settings) == real_change
    older = {k: v for k, v in meta.items() if k != "protocol"}  # played before protocols
    assert settings_changes(older, paused.settings) == []  # ... which was paused
    assert settings_changes(older, real.settings) == real_change


def test_a_game_that_crashes_while_the_model_thinks_ends_the_episode(
    tmp_path: Path, thinking_clock: None
) -> None:
    """The first slice the fake game plays is the thinking time: it crashes there, so the
    step's actions never reach it; the step is still recorded, the crash is the game's."""
    spec = with_protocol(spec_for(tmp_path, max_steps=3), realtime=True)
    make, record = fake_runtimes(FakeGame(crash_at=0))
    meta = run_episode(spec, FakePolicy([RIGHT], wait_s=0.6), make)
    assert (meta["status"], meta["steps"]) == ("crashed", 1), meta
    assert [(len(a), s) for a, s in record.acts] == [(0, 0.5)]
    (step,) = trace_of(spec)
    assert step["think_game_s"] == 0.5 and step["t_game"] == 0.0  # it never applied
