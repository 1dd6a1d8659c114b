"""The episode loop on its own: a scripted runtime and a scripted policy, no game, no server.

Every way an episode ends is played here in milliseconds (the hang waits a fraction of a
second): the caps, the game's failures, the model server's refusal, a policy that is gone and
a bug of ours; and what the loop passes on (history, time left, frames at game time) and writes
(trace, meta, video). The real games and servers are in test_play.py, test_evidence.py,
test_waits.py and test_blame.py.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, InfrastructureError, run_episode
from playsuite.harness.recorder import episode_finished
from playsuite.registry import load_registry
from playsuite.runtimes.base import Observation, RuntimeOptions
from playsuite.runtimes.env import GameEnv
from playsuite.testing.fakes import FakeGame, FakePolicy, FakeRuntime, fake_runtimes

FPS = 2.0  # a 2 s step (0.5 Hz) is 4 video frames
WAIT = "Observation: a grey screen.\nReasoning: nothing to do.\nAction: wait"
RIGHT = "Observation: a grey screen.\nReasoning: go right.\nAction: right"


def game_entry() -> GameEntry:
    return GameEntry.from_dict(
        {
            "id": "fake-game",
            "title": "Fake Game",
            "source": "pyweek",
            "package": "fake.zip",
            "runtime": "pygame",
            "entry": "run_game.py",
            "controls": "Arrow keys move.",
        }
    )


def spec_for(tmp_path: Path, condition: str = "k2-hz0.5-base", **limits: Any) -> EpisodeSpec:
    (tmp_path / "work").mkdir(parents=True, exist_ok=True)
    return EpisodeSpec(
        corpus="test",
        game=game_entry(),
        preset=load_registry().preset("internvl3.5-8b"),
        condition=Condition.parse(condition),
        out_dir=tmp_path / "episode",
        runtime_options=RuntimeOptions(
            workdir=tmp_path / "work", game_dir=tmp_path / "files", video_fps=FPS
        ),
        limits=EpisodeLimits(**{"max_game_s": None, "wall_timeout_s": 60.0, **limits}),
    )


def trace_of(spec: EpisodeSpec) -> list[dict[str, Any]]:
    text = (spec.out_dir / "trace.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_a_step_cap_plays_that_many_steps_and_records_them_at_game_time(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=3)
    make, record = fake_runtimes()
    policy = FakePolicy([RIGHT], info={"usage": {"completion_tokens": 7}})
    progress: list[tuple[int, float]] = []
    meta = run_episode(spec, policy, make, on_step=lambda step, t: progress.append((step, t)))

    assert meta["status"] == "ok" and meta["stop_reason"] == "steps" and meta["error"] == ""
    assert meta["steps"] == 3 and meta["frames"] == 12 and meta["t_game"] == 6.0
    assert meta["screen"] == [64, 48] and meta["final_probes"] == {"t": 6.0, "steps": 3}
    assert meta["invalid_steps"] == 0 and meta["invalid_rate"] == 0.0
    assert meta["model_s"] == pytest.approx(0.75) and meta["template"] == "standard"
    assert meta["limits"] == {"max_steps": 3, "max_game_s": None, "max_frames": None}
    assert meta["seed"] == spec.seed and meta["history_k"] == 2 and meta["step_seconds"] == 2.0
    assert json.loads((spec.out_dir / "meta.json").read_text()) == meta
    assert episode_finished(spec.out_dir) and (spec.out_dir / "episode.mp4").stat().st_size > 0
    trace = trace_of(spec)
    assert [r["step"] for r in trace] == [0, 1, 2]
    assert [r["frame"] for r in trace] == [0, 4, 8]  # each step starts where the video is
    assert [r["t_game"] for r in trace] == [0.0, 2.0, 4.0]
    assert [r["probes"] for r in trace] == [{"t": 2.0 * n, "steps": n} for n in range(3)]
    assert all(r["response"] == RIGHT and r["invalid"] is False for r in trace)
    assert all([a["kind"] for a in r["actions"]] == ["key"] for r in trace), trace
    assert all(r["latency_s"] == 0.25 and r["image_size"] == [64, 48] for r in trace)
    assert all(r["info"] == {"usage": {"completion_tokens": 7}} for r in trace)
    assert progress == [(0, 2.0), (1, 4.0), (2, 6.0)]
    # the runtime: built once with a seeded copy of the options, one slice per step, closed
    assert [seconds for _, seconds in record.acts] == [2.0, 2.0, 2.0]
    assert [a.to_dict()["kind"] for a in record.acts[0][0]] == ["key"]
    assert record.started == 1 and record.closed >= 1
    (options,) = record.options
    assert options.seed == spec.seed and options is not spec.runtime_options


@pytest.mark.parametrize(
    ("limits", "reason", "steps"),
    [
        ({"max_game_s": 5.0}, "game_time", 3),  # 6 s >= 5 s after the third 2 s step
        ({"max_frames": 6}, "frames", 2),  # 8 frames >= 6 after the second step
        ({"max_steps": 0}, "steps", 0),  # checked before the first step too
    ],
)
def test_the_first_cap_reached_ends_the_episode(
    tmp_path: Path, limits: dict[str, Any], reason: str, steps: int
) -> None:
    spec = spec_for(tmp_path, max_steps=10, **limits) if "max_steps" not in limits else None
    spec = spec or spec_for(tmp_path, **limits)
    make, record = fake_runtimes()
    meta = run_episode(spec, FakePolicy(), make)
    assert (meta["status"], meta["stop_reason"], meta["steps"]) == ("ok", reason, steps), meta
    assert len(record.acts) == steps and meta["frames"] == 4 * steps
    assert meta["screen"] == [64, 48]  # the launch's frame, even with no step played


def test_the_agent_is_given_the_history_and_the_time_left(tmp_path: Path) -> None:
    """k=2: the prompt shows the last two steps, whether each changed the screen."""
    spec = spec_for(tmp_path, max_steps=4)
    make, _ = fake_runtimes()
    policy = FakePolicy([WAIT, RIGHT, WAIT, RIGHT])
    run_episode(spec, policy, make)
    histories = [[(e.step, e.screen_changed) for e in r.history] for r in policy.requests]
    assert histories == [[], [(0, True)], [(0, True), (1, True)], [(1, True), (2, True)]]
    assert [r.step for r in policy.requests] == [0, 1, 2, 3]
    assert [r.t_game for r in policy.requests] == [0.0, 2.0, 4.0, 6.0]
    assert "Step 1 (game time 2.0 s)" in policy.requests[2].prompt
    assert "Result: the screen changed." in policy.requests[2].prompt
    assert all(0 < r.wall_left_s <= 60.0 for r in policy.requests)
    assert all(r.system == policy.requests[0].system for r in policy.requests)
    assert all(r.step_seconds == 2.0 and r.game["id"] == "fake-game" for r in policy.requests)

    still = spec_for(tmp_path / "still", max_steps=2)
    policy = FakePolicy()
    run_episode(still, policy, fake_runtimes(FakeGame(still=True))[0])
    assert [(e.step, e.screen_changed) for e in policy.requests[1].history] == [(0, False)]
    assert "Result: the screen did NOT change." in policy.requests[1].prompt


def test_unparsable_answers_are_counted_as_invalid_no_op_steps(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=4)
    make, record = fake_runtimes()
    meta = run_episode(spec, FakePolicy([WAIT, "I would rather not.", RIGHT, "???"]), make)
    assert meta["status"] == "ok" and meta["steps"] == 4
    assert meta["invalid_steps"] == 2 and meta["invalid_rate"] == 0.5
    trace = trace_of(spec)
    assert [r["invalid"] for r in trace] == [False, True, False, True]
    assert [a["kind"] for a in trace[1]["actions"]] == ["invalid"]
    assert [a.to_dict()["kind"] for a in record.acts[1][0]] == ["invalid"]  # sent as a no-op


@pytest.mark.parametrize(
    ("script", "status", "steps", "frames"),
    [
        (FakeGame(crash_at=2), "crashed", 3, 8 + 2),  # the failing slice's two frames kept
        (FakeGame(exit_at=1), "ok", 2, 4 + 2),  # the game quit by itself: its own end
        (FakeGame(launch_fails=True), "launch_failed", 0, 0),
    ],
)
def test_a_game_that_fails_ends_the_episode_with_its_status(
    tmp_path: Path, script: FakeGame, status: str, steps: int, frames: int
) -> None:
    spec = spec_for(tmp_path, max_steps=10)
    make, record = fake_runtimes(script)
    meta = run_episode(spec, FakePolicy(), make)
    assert (meta["status"], meta["steps"], meta["frames"]) == (status, steps, frames), meta
    assert meta["stop_reason"] == "" and "final_probes" not in meta
    assert meta["error"].startswith("the fake game")
    assert len(trace_of(spec)) == steps and episode_finished(spec.out_dir)
    assert (spec.out_dir / "episode.mp4").exists() == bool(frames)
    assert ("screen" in meta) == (not script.launch_fails)
    assert record.closed >= 1  # the runtime is closed whatever happened


def test_a_hung_step_ends_at_the_slice_limit_with_status_timeout(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=10)
    spec.runtime_options.slice_timeout_s = 0.2
    make, _ = fake_runtimes(FakeGame(hang_at=1))
    started = time.monotonic()
    meta = run_episode(spec, FakePolicy(), make)
    assert time.monotonic() - started >= 0.2
    assert (meta["status"], meta["steps"], meta["frames"]) == ("timeout", 2, 4 + 2), meta


def test_the_runtime_waits_are_cut_to_the_wall_clock_time_left(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=1, wall_timeout_s=30.0)
    make, record = fake_runtimes()
    run_episode(spec, FakePolicy(), make)
    (options,) = record.options
    assert 29.0 < options.slice_timeout_s <= 30.0 and 29.0 < options.launch_timeout_s <= 30.0
    assert spec.runtime_options.slice_timeout_s == 120.0  # the caller's options are untouched
    assert spec.runtime_options.launch_timeout_s == 60.0


def test_an_episode_past_its_wall_clock_limit_stops_with_status_timeout(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=10, wall_timeout_s=0.0)
    make, record = fake_runtimes()
    meta = run_episode(spec, FakePolicy(), make)
    assert (meta["status"], meta["steps"], meta["stop_reason"]) == ("timeout", 0, "")
    assert meta["error"] == "episode exceeded its wall-clock limit of 0.0 s"
    assert record.options[0].slice_timeout_s == 1.0  # never less than MIN_WAIT_S


def test_a_refused_request_ends_the_episode_as_a_model_error(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=10)
    make, _ = fake_runtimes()
    meta = run_episode(spec, FakePolicy(refuse_at=1), make)
    assert (meta["status"], meta["steps"], meta["stop_reason"]) == ("model_error", 1, "model_error")
    assert meta["error"].startswith("the model server refused step 1's request: HTTP 400")
    assert "final_probes" not in meta and episode_finished(spec.out_dir)


def test_a_policy_that_cannot_answer_leaves_nothing_finished(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=10)
    make, record = fake_runtimes()
    with pytest.raises(InfrastructureError, match="policy 'fake' failed: the fake model") as err:
        run_episode(spec, FakePolicy(fail_at=2), make)
    assert isinstance(err.value.__cause__, ConnectionError)
    assert not episode_finished(spec.out_dir) and not (spec.out_dir / "meta.json").exists()
    assert not list(tmp_path.glob(".episode*.partial"))  # the staging folder is gone too
    assert record.closed >= 1


def test_a_bug_of_ours_is_a_harness_error_with_the_steps_so_far(tmp_path: Path) -> None:
    class Broken(FakeRuntime):
        """Its probes are broken: the loop meets the bug when it asks for the final ones."""

        def observe(self) -> Observation:
            return Observation(self.frame_at(self.t), self.t)

        def probes(self) -> dict[str, Any]:
            raise KeyError("a bug")

    spec = spec_for(tmp_path, max_steps=2)
    meta = run_episode(spec, FakePolicy(), lambda game, options: Broken(game, options))
    assert (meta["status"], meta["steps"], meta["frames"]) == ("harness_error", 2, 8), meta
    assert meta["error"] == "harness error: KeyError: 'a bug'"
    assert meta["stop_reason"] == "steps" and episode_finished(spec.out_dir)


def test_a_runtime_that_cannot_be_built_is_raised_not_recorded(tmp_path: Path) -> None:
    def unbuildable(game: GameEntry, options: RuntimeOptions) -> FakeRuntime:
        raise ValueError("no such runtime")

    spec = spec_for(tmp_path, max_steps=1)
    with pytest.raises(ValueError, match="no such runtime"):
        run_episode(spec, FakePolicy(), unbuildable)
    assert not episode_finished(spec.out_dir)


def test_the_game_env_alone_reports_a_crash_as_the_end_of_the_episode(tmp_path: Path) -> None:
    """GameEnv stays a plain Gymnasium env: reset, step, terminated with the status in info."""
    make, record = fake_runtimes(FakeGame(crash_at=1))
    env = GameEnv(game_entry(), tmp_path / "files", step_seconds=1.0, make_runtime=make)
    try:
        frame, info = env.reset(seed=5)
        assert frame.shape == (48, 64, 3) and env.observation_space.contains(frame)
        assert info == {"t_game": 0.0, "probes": {"t": 0.0, "steps": 0}, "status": "ok"}
        assert record.options[0].seed == 5 and record.options[0].video_fps == 30.0
        frame, reward, terminated, truncated, info = env.step([{"kind": "wait"}])
        assert (reward, terminated, truncated, info["status"]) == (0.0, False, False, "ok")
        assert len(info["frames"]) == 30 and info["t_game"] == 1.0
        frame, _, terminated, _, info = env.step([{"kind": "wait"}])
        assert terminated and info["status"] == "crashed" and info["failed_in"] == "act"
        assert len(info["frames"]) == 15 and np.array_equal(frame, info["frames"][-1])
        assert record.closed == 1  # the crashed game is stopped at once
        env.reset(seed=6)  # a fresh game
        assert record.started == 2 and record.options[1].seed == 6
    finally:
        env.close()
    assert record.closed == 2 and not env.workdir.exists()


def test_a_bug_after_a_played_slice_keeps_that_step_and_its_frames(tmp_path: Path) -> None:
    """The slice was played before our code failed on observing it: the step's trace line and
    its four frames are evidence of what happened, so the harness error keeps them."""
    spec = spec_for(tmp_path, max_steps=5)
    make, _ = fake_runtimes(FakeGame(observe_bug_at=1))
    meta = run_episode(spec, FakePolicy(), make)
    assert meta["status"] == "harness_error" and "RuntimeError" in meta["error"], meta
    assert (meta["steps"], meta["frames"]) == (2, 2 * 4), meta
    assert [line["step"] for line in trace_of(spec)] == [0, 1]


def test_meta_records_what_served_the_model(tmp_path: Path) -> None:
    """``model``: the job server's record when there is one, else what the preset names; the
    engine version comes only from a server, never a guess."""
    served = {
        "hf_id": "OpenGVLab/InternVL3_5-8B",
        "revision": "abc123",
        "served": "OpenGVLab/InternVL3_5-8B",
        "engine": "vllm",
        "engine_version": "0.32.0",
    }
    spec = spec_for(tmp_path, max_steps=1)
    spec.served_model = served
    meta = run_episode(spec, FakePolicy([RIGHT]), fake_runtimes()[0])
    assert meta["model"] == served
    assert json.loads((spec.out_dir / "meta.json").read_text())["model"] == served

    bare = spec_for(tmp_path / "bare", max_steps=1)
    meta = run_episode(bare, FakePolicy([RIGHT]), fake_runtimes()[0])
    assert meta["model"] == {
        "hf_id": bare.preset.hf_id,
        "revision": bare.preset.revision,
        "served": None,
        "engine": None,
        "engine_version": None,
    }


def test_a_baseline_records_no_model(tmp_path: Path) -> None:
    spec = spec_for(tmp_path, max_steps=1)
    spec.preset = load_registry().preset("random")
    meta = run_episode(spec, FakePolicy([RIGHT]), fake_runtimes()[0])
    assert "model" in meta and meta["model"] is None


def test_meta_records_the_conditions_settings_and_the_sampling_played(tmp_path: Path) -> None:
    """A condition beyond k-hz-variant: its settings by path, and the preset's sampling once the
    condition's overrides were applied (playsuite.harness.job.apply_condition)."""
    from playsuite.harness.job import apply_condition

    spec = spec_for(tmp_path, "k2-hz0.5-base+play.steps=2+sampling.temperature=0.7")
    preset, steps = apply_condition(spec.preset, spec.condition, None)
    limits = EpisodeLimits(max_steps=steps, max_game_s=None, wall_timeout_s=60.0)
    spec = dataclasses.replace(spec, preset=preset, limits=limits)
    meta = run_episode(spec, FakePolicy([RIGHT]), fake_runtimes()[0])
    assert meta["status"] == "ok" and meta["steps"] == 2
    assert meta["condition"] == "k2-hz0.5-base+play.steps=2+sampling.temperature=0.7"
    assert meta["condition_settings"] == {
        "history_k": 2,
        "hz": 0.5,
        "variant": "base",
        "play.steps": 2,
        "sampling.temperature": 0.7,
    }
    assert meta["sampling"] == {
        **load_registry().preset("internvl3.5-8b").sampling,
        "temperature": 0.7,
    }
    assert json.loads((spec.out_dir / "meta.json").read_text()) == meta
