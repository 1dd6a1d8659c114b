"""The shared system part: loaded beside its template, sent as the system message every step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from playsuite.agents.policy import StepRequest
from playsuite.agents.prompts import (
    EpisodePrompt,
    PromptError,
    available_templates,
    load_template,
    render_prompt,
)
from playsuite.agents.served import ServedModelPolicy
from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, run_episode
from playsuite.registry import load_registry
from playsuite.runtimes.base import Observation, Runtime, RuntimeOptions
from playsuite.testing.fakes import RecordingChatClient

SCREEN = (160, 120)


def test_every_standard_variant_shares_one_system_part(game_row):
    systems = {name: load_template(name).system for name in ("standard", "standard+strategy")}
    systems["standard+fewshot"] = load_template("standard+fewshot").system
    assert all(s is not None for s in systems.values())
    assert {s.path.name for s in systems.values()} == {"standard.system.txt"}
    for name in ("computer_use", "uitars", "opencua", "osatlas", "showui"):
        assert load_template(name).system is None, name  # their formats carry their own preamble
    system = load_template("standard").system.text.strip()
    for name in systems:
        user = render_prompt(name, game_row, screen=(800, 600), step_seconds=3)
        both = render_prompt(name, game_row, screen=(800, 600), step_seconds=3, with_system=True)
        assert system not in user and both == f"{system}\n\n{user}", name


def test_a_system_part_with_an_unknown_placeholder_is_an_error(tmp_path: Path):
    (tmp_path / "mine.txt").write_text("Play $title\n")
    (tmp_path / "mine+terse.txt").write_text("Play $title, briefly\n")
    (tmp_path / "mine.system.txt").write_text("You play $genre games in $titel\n")
    with pytest.raises(PromptError, match=r"mine\.system\.txt.*\$titel"):
        load_template("mine+terse", tmp_path)
    assert available_templates(tmp_path) == ["mine", "mine+terse"]  # not a template of its own


#: What the recording client answers every request.
ENTER_ANSWER = "Observation: a menu.\nReasoning: start.\nAction: enter"


class _StillRuntime(Runtime):
    """A game whose screen never changes: enough for the harness to run its loop."""

    frame = np.zeros((SCREEN[1], SCREEN[0], 3), dtype=np.uint8)

    @property
    def screen_size(self) -> tuple[int, int]:
        return SCREEN

    def start(self) -> Observation:
        self.t = 0.0
        return Observation(self.frame, self.t)

    def observe(self) -> Observation:
        return Observation(self.frame, self.t)

    def act(self, actions, seconds: float) -> list[np.ndarray]:
        self.t += seconds
        return [self.frame] * max(1, round(seconds * self.video_fps))

    def close(self) -> None:
        pass


def test_the_harness_sends_the_system_part_as_the_system_message(tmp_path: Path, game_row):
    registry = load_registry()
    preset = registry.preset("qwen3-vl-8b")
    game = GameEntry.from_dict(game_row)
    spec = EpisodeSpec(
        corpus="test",
        game=game,
        preset=preset,
        condition=Condition.parse("k3-hz0.33-strategy"),
        out_dir=tmp_path / "episode",
        runtime_options=RuntimeOptions(workdir=tmp_path, game_dir=tmp_path, video_fps=2.0),
        limits=EpisodeLimits(max_steps=2),
    )
    client = RecordingChatClient(ENTER_ANSWER)
    meta = run_episode(spec, ServedModelPolicy(preset, client), lambda g, o: _StillRuntime(g, o))
    assert meta["status"] == "ok" and meta["steps"] == 2, meta
    expected = EpisodePrompt.for_run(preset, spec.condition, game_row).render_system(SCREEN)
    assert expected.startswith("You are an agent that plays video games.")
    for messages in client.requests:
        assert [m["role"] for m in messages] == ["system", "user"]
        assert messages[0]["content"] == expected
        user_text = messages[1]["content"][-1]["text"]
        assert "Strategy:" in user_text and expected.strip() not in user_text
    # a template without a system part sends the user message alone
    cua = ServedModelPolicy(registry.preset("evocua-8b"), client)
    cua.act(StepRequest(_StillRuntime.frame, game_row, 0, 0.0, SCREEN, "Play the game."))
    assert [m["role"] for m in client.requests[-1]] == ["user"]
