"""The Agent on its own: prompt, history, parser and policy errors, no game and no loop."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from playsuite.actions import Invalid
from playsuite.agents.agent import Agent, PolicyFailed
from playsuite.agents.prompts import EpisodePrompt
from playsuite.config import Condition
from playsuite.inference.client import InferenceRequestError
from playsuite.registry import load_registry
from playsuite.testing.fakes import FakePolicy

FRAME = np.zeros((120, 160, 3), dtype=np.uint8)
CLICK = "Observation: a menu.\nReasoning: start.\nAction: click(40, 30)"


def agent_for(policy: FakePolicy, preset: str = "internvl3.5-8b", k: int = 2) -> Agent:
    return Agent(policy, load_registry().preset(preset), Condition.parse(f"k{k}-hz0.33-base"))


def test_act_asks_with_the_rendered_prompt_and_parses_the_answer(game_row) -> None:
    policy = FakePolicy([CLICK, "no idea"], latency_s=0.5, info={"usage": {"total_tokens": 9}})
    agent = agent_for(policy)
    agent.reset(game_row, readme_text="Press Z to jump.")
    first = agent.act(FRAME, 0.0, wall_left_s=12.5)
    (request,) = policy.requests
    prompt = EpisodePrompt.for_run(
        agent.preset, agent.condition, game_row, readme_text="Press Z to jump."
    )
    assert request.prompt == prompt.render((160, 120)) and request.system == prompt.render_system(
        (160, 120)
    )
    assert (request.step, request.t_game, request.screen, request.wall_left_s) == (
        0,
        0.0,
        (160, 120),
        12.5,
    )
    assert request.step_seconds == 3.0 and request.game["id"] == game_row["id"]
    assert (first.step, first.screen, first.invalid, first.response) == (
        0,
        (160, 120),
        False,
        CLICK,
    )
    assert [a.to_dict()["kind"] for a in first.actions] == ["click"]
    assert first.actions[0].to_dict()["x"] == 40 and first.latency_s == 0.5
    assert first.image_size == (160, 120) and first.info == {"usage": {"total_tokens": 9}}
    assert agent.template_name == "standard"

    second = agent.act(FRAME, 3.0)
    assert second.step == 1 and second.invalid and isinstance(second.actions[0], Invalid)
    assert [e.step for e in policy.requests[1].history] == [0]


def test_the_history_keeps_k_steps_marked_with_their_result(game_row) -> None:
    policy = FakePolicy([CLICK])
    agent = agent_for(policy, k=2)
    agent.reset(game_row)
    for n, changed in enumerate([True, False, True]):
        agent.act(FRAME, 3.0 * n)
        agent.observe_result(changed)
    agent.act(FRAME, 9.0)
    last = policy.requests[-1]
    assert [(e.step, e.screen_changed) for e in last.history] == [(1, False), (2, True)]
    assert "Result: the screen did NOT change." in last.prompt

    agent.reset(game_row)  # a new episode forgets the last one
    agent.act(FRAME, 0.0)
    assert policy.requests[-1].history == () and policy.requests[-1].step == 0


def test_a_refusal_passes_through_and_any_other_failure_is_policy_failed(game_row) -> None:
    agent = agent_for(FakePolicy(refuse_at=0))
    agent.reset(game_row)
    with pytest.raises(InferenceRequestError, match="HTTP 400"):
        agent.act(FRAME, 0.0)
    agent = agent_for(FakePolicy(fail_at=0))
    agent.reset(game_row)
    with pytest.raises(PolicyFailed, match="policy 'fake' failed: the fake model server") as err:
        agent.act(FRAME, 0.0)
    assert isinstance(err.value.__cause__, ConnectionError)
    assert agent.steps == 0 and len(agent.history) == 0  # nothing remembered of a failed step


def test_an_agent_must_be_reset_before_it_acts() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        agent_for(FakePolicy()).act(FRAME, 0.0)


def test_history_frames_are_kept_only_for_presets_that_send_them(game_row) -> None:
    plain = load_registry().preset("internvl3.5-8b")
    for preset, kept in ((plain, None), (dataclasses.replace(plain, history_frames=True), FRAME)):
        agent = Agent(FakePolicy([CLICK]), preset, Condition.parse("k2-hz0.33-base"))
        agent.reset(game_row)
        agent.act(FRAME, 0.0)
        assert agent.history.entries()[0].frame is kept
