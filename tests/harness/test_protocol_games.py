"""The GameWorld protocol options on real games of the local corpus.

* reset on fail: T-Rex Runner (npm, browser) crashes into its first cactus a few seconds after
  it starts; its ``game_over`` probe relaunches the page and the episode plays on;
* real time: Trip on the Funny Boat (Debian, pygame) with a policy that really takes 0.3 s per
  answer, then ``playsuite play`` with a baseline, an action budget and real time together.

The policy of the first two is scripted (playsuite.testing.fakes.FakePolicy) so the game's course
is known; the game, the runtime, the loop and the recorder are the real ones.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import av
import pytest

from playsuite.config import Condition
from playsuite.corpus import GameEntry, find_game, load_corpus
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, run_episode, think_game_seconds
from playsuite.harness.protocol import PlayProtocol
from playsuite.judge.episode import load_episode
from playsuite.judge.tasks import episode_outcomes, game_tasks
from playsuite.records.episode import read_meta, read_trace
from playsuite.registry import load_registry
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from playsuite.testing.fakes import FakePolicy
from tests.runtimes.conftest import LOCAL_CORPUS, REPO, games_cache

PLAYSUITE = str(Path(sys.executable).with_name("playsuite"))

pytestmark = [pytest.mark.games, pytest.mark.slow]


def reply(action: str) -> str:
    return f"Observation: the game.\nReasoning: scripted.\nAction: {action}"


def local_game(game_id: str) -> GameEntry:
    return find_game(load_corpus(LOCAL_CORPUS), game_id)


def spec_for(
    tmp_path: Path, game: GameEntry, condition: str, protocol: PlayProtocol, fps: float
) -> EpisodeSpec:
    from playsuite.runtimes.acquire import acquire

    files = acquire(game, games_cache(), base_dir=REPO).files
    work = tmp_path / "work"
    work.mkdir()
    budget = protocol.action_budget
    return EpisodeSpec(
        corpus="local",
        game=game,
        preset=load_registry().preset("internvl3.5-8b"),
        condition=Condition.parse(condition),
        out_dir=tmp_path / "episode",
        runtime_options=RuntimeOptions(workdir=work, game_dir=files, video_fps=fps),
        limits=EpisodeLimits(max_steps=budget, max_game_s=None, wall_timeout_s=400.0),
        protocol=protocol,
    )


def video_frames(path: Path) -> int:
    with av.open(str(path)) as container:
        return sum(1 for _ in container.decode(video=0))


@pytest.mark.browser
def test_reset_on_fail_relaunches_t_rex_runner_after_each_crash(tmp_path: Path) -> None:
    """Space starts a run, then the dinosaur waits for the first cactus (about 6 s at 1 Hz)."""
    game = local_game("t-rex-runner")
    protocol = PlayProtocol.from_schema(action_budget=14, reset_on_fail=True)
    spec = spec_for(tmp_path, game, "k0-hz1-base+play.action_budget=14", protocol, 10.0)
    policy = FakePolicy(([reply("space")] + [reply("wait")] * 5) * 3)
    meta = run_episode(spec, policy, make_runtime)

    assert (meta["status"], meta["stop_reason"], meta["steps"]) == ("ok", "steps", 14), meta
    assert meta["limits"] == {"max_steps": 14, "max_game_s": None, "max_frames": None}
    attempts = meta["attempts"]
    assert len(attempts) >= 2 and attempts[0]["end"] == "game_over", attempts
    assert all(a["launch_s"] > 0 for a in attempts)
    trace = read_trace(spec.out_dir)
    ends = [r for r in trace if "attempt_end" in r]
    assert len(ends) == sum(a["end"] == "game_over" for a in attempts)
    for end, after in zip(ends, attempts[1:], strict=False):
        assert end["attempt_end"]["probes"]["game_over"] is True
        assert end["attempt_end"]["probes"]["score"] > 0  # it ran before it crashed
        assert after["step"] == end["step"] + 1 and after["t_game"] == end["attempt_end"]["t_game"]
    # every relaunch starts a fresh game: its first step reads a score of 0 and no game over
    for attempt in attempts[1:]:
        first = trace[attempt["step"]]
        assert first["attempt"] == attempts.index(attempt)
        assert first["probes"] == {"score": 0, "game_over": False}
    # one video of the whole episode, at game time across relaunches
    times = [r["t_game"] for r in trace]
    assert times == sorted(times) and meta["frames"] == 14 * 10
    assert video_frames(spec.out_dir / "episode.mp4") == meta["frames"]

    # the score tasks keep the best attempt's run
    episode = load_episode(spec.out_dir)
    best = max(e["attempt_end"]["probes"]["score"] for e in ends)
    for outcome in episode_outcomes(episode, game_tasks(game)):
        task = next(t for t in game_tasks(game) if t.name == outcome.task)
        assert outcome.best == best
        assert outcome.progress == pytest.approx(min(best / task.target, 1.0))


def test_real_time_plays_a_slow_policys_latency_as_game_time(tmp_path: Path) -> None:
    game = local_game("funnyboat")
    protocol = PlayProtocol.from_schema(action_budget=3, realtime=True)
    name = "k0-hz3-base+play.action_budget=3+play.realtime=true"
    spec = spec_for(tmp_path, game, name, protocol, 30.0)
    meta = run_episode(spec, FakePolicy([reply("space")], wait_s=0.3), make_runtime)

    assert meta["status"] == "ok" and meta["steps"] == 3, meta
    assert meta["protocol"] == {"action_budget": 3, "reset_on_fail": False, "realtime": True}
    trace = read_trace(spec.out_dir)
    thought = [round(r["think_game_s"] * 30) for r in trace]
    for record, frames in zip(trace, thought, strict=True):
        assert record["think_s"] >= 0.3
        assert record["think_game_s"] == pytest.approx(think_game_seconds(record["think_s"], 30))
        assert frames >= 9  # 0.3 s of thinking is at least 9 frames of the game's time
    # each step: its thinking frames, then its own 10 (1/3 s); the trace says when actions applied
    assert meta["frames"] == 3 * 10 + sum(thought)
    assert video_frames(spec.out_dir / "episode.mp4") == meta["frames"]
    applied, video = [], 0
    for frames in thought:
        video += frames
        applied.append(video)
        video += 10
    assert [r["frame"] for r in trace] == applied
    assert [r["t_game"] for r in trace] == pytest.approx([f / 30 for f in applied], abs=0.02)


def test_playsuite_play_with_a_baseline_an_action_budget_and_real_time(tmp_path: Path) -> None:
    out = tmp_path / "episode"
    condition = "k0-hz3-base+play.action_budget=4+play.realtime=true"
    result = subprocess.run(
        [
            PLAYSUITE,
            "play",
            "--game",
            "funnyboat",
            "--agent",
            "random",
            "--condition",
            condition,
            "--out",
            str(out),
            "--games-dir",
            str(games_cache()),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr
    meta = read_meta(out)
    assert (meta["status"], meta["steps"], meta["stop_reason"]) == ("ok", 4, "steps"), meta
    assert meta["condition"] == condition
    assert meta["protocol"] == {"action_budget": 4, "reset_on_fail": False, "realtime": True}
    assert meta["limits"] == {"max_steps": 4, "max_game_s": None, "max_frames": None}
    trace = read_trace(out)
    thought = sum(round(r["think_game_s"] * 30) for r in trace)
    for record in trace:  # both are rounded as recorded: think_s to 0.1 ms, game time to 1 µs
        want = think_game_seconds(record["think_s"], 30)
        assert record["think_game_s"] == pytest.approx(want, abs=1e-5), record
    assert meta["frames"] == 4 * 10 + thought
