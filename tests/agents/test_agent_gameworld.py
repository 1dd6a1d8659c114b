"""GameWorld's agent settings: the task in the prompt, the tool interface, memory rounds."""

from __future__ import annotations

import numpy as np
import pytest

from playsuite.actions import Click, Key
from playsuite.actions.parsers import parse_response
from playsuite.actions.parsers.tools import tool_calls_text
from playsuite.agents.agent import Agent
from playsuite.agents.baselines import RandomPolicy
from playsuite.agents.history import History, entry_from_response
from playsuite.agents.policy import StepRequest
from playsuite.agents.prompts import EpisodePrompt, template_for
from playsuite.agents.served import ServedModelPolicy, answer_text
from playsuite.config import Condition, ConfigError
from playsuite.inference.client import ChatResult
from playsuite.registry import load_registry
from playsuite.testing.fakes import FakePolicy

FRAME = np.zeros((120, 160, 3), dtype=np.uint8)
TASKS = [
    {"name": "score_100", "instruction": "Score  100 points.", "probe": "score", "target": 100},
    {"name": "level_2", "instruction": "Reach the second level.", "probe": "level", "target": 2},
]
CLICK = "Observation: a menu.\nReasoning: start.\nAction: click:40,30"


@pytest.fixture
def task_row(game_row: dict) -> dict:
    return {**game_row, "tasks": TASKS}


def agent(policy, condition: str, preset: str = "internvl3.5-8b") -> Agent:
    return Agent(policy, load_registry().preset(preset), Condition.parse(condition))


# --- the task in the prompt --------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["internvl3.5-8b", "ui-tars-1.5-7b", "random"])
def test_a_task_run_puts_that_task_in_every_familys_prompt(task_row: dict, preset: str) -> None:
    registry_preset = load_registry().preset(preset)
    plain = EpisodePrompt.for_run(registry_preset, "k0-hz0.33-base", task_row).render((160, 120))
    second = EpisodePrompt.for_run(registry_preset, "k0-hz0.33-base+task.index=1", task_row).render(
        (160, 120)
    )
    assert "Reach the second level." in second and "# Your task" in second
    assert "Score 100 points." not in second  # the other task is not this run's
    assert "# Your task" not in plain and "Reach the second level." not in plain


def test_a_row_without_that_task_gets_no_task_block(task_row: dict) -> None:
    preset = load_registry().preset("internvl3.5-8b")
    plain = EpisodePrompt.for_run(preset, "k0-hz0.33-base", task_row).render((160, 120))
    beyond = EpisodePrompt.for_run(preset, "k0-hz0.33-base+task.index=5", task_row)
    assert beyond.render((160, 120)) == plain


# --- the tool interface ------------------------------------------------------------------------


def test_the_tool_interface_uses_the_tools_template_and_parser(game_row: dict) -> None:
    reply = tool_calls_text([("click", {"x": 40, "y": 30})], "The menu has a Play button.")
    policy = FakePolicy([reply])
    tools = agent(policy, "k2-hz0.33-base+agent.interface=tools", "ui-tars-1.5-7b")
    tools.reset(game_row)
    step = tools.act(FRAME, 0.0)
    assert tools.template_name == "tools" and tools.parser == "tools"
    assert step.actions == [Click(40, 30)] and not step.invalid
    (request,) = policy.requests
    names = [t["function"]["name"] for t in request.tools]
    assert "press_key" in names and request.tool_choice == "required"
    click = next(t for t in request.tools if t["function"]["name"] == "click")
    assert click["function"]["parameters"]["properties"]["x"]["maximum"] == 159
    # the history line of the step names the call
    assert "click" in tools.history.entries()[0].action

    text = agent(FakePolicy([CLICK]), "k0-hz0.33-base", "ui-tars-1.5-7b")
    text.reset(game_row)
    assert text.template_name == "uitars" and text.parser == "uitars"
    text.act(FRAME, 0.0)
    assert text.policy.requests[0].tools == ()


def test_tool_choice_auto_is_a_condition_setting() -> None:
    cond = Condition.parse("k0-hz0.33-base+agent.interface=tools+agent.tool_choice=auto")
    assert cond.setting("agent.tool_choice") == "auto"
    assert template_for(load_registry().preset("qwen2.5-vl-7b"), cond) == "tools"
    with pytest.raises(ConfigError, match="its default"):
        Condition.parse("k0-hz0.33-base+agent.interface=text")


@pytest.mark.parametrize("seed", range(6))
def test_a_baseline_answers_the_same_action_as_tool_calls(game_row: dict, seed: int) -> None:
    policy = RandomPolicy(seed=seed)
    request = StepRequest(
        frame=FRAME, game=game_row, step=seed, t_game=0.0, screen=(160, 120), prompt=""
    )
    as_text = policy.act(request).text
    as_tools = policy.act(
        StepRequest(**{**request.__dict__, "tools": ({"type": "function"},)})
    ).text
    expected = parse_response("standard", as_text, screen=(160, 120))
    got = parse_response("tools", as_tools, screen=(160, 120))
    if expected[0].kind == "move" and expected[0].relative:
        assert got[0].kind == "wait"  # no tool moves the pointer by an offset
    else:
        assert got == expected, (as_text, as_tools)


def test_answer_text_writes_the_servers_tool_calls_after_the_text() -> None:
    message = {
        "content": None,
        "tool_calls": [
            {"type": "function", "function": {"name": "press_key", "arguments": '{"keys": ["up"]}'}}
        ],
    }
    result = ChatResult("", "tool_calls", {}, 0.1, 0.1, 1, "m", {"choices": [{"message": message}]})
    text = answer_text(result)
    assert parse_response("tools", text, screen=(10, 10)) == [Key(("up",))]


# --- memory rounds -----------------------------------------------------------------------------


def test_history_keeps_text_steps_and_memory_turns_apart() -> None:
    history = History(1, rounds=2)
    for step in range(3):
        history.add(entry_from_response(step, 3.0 * step, f"Action: key{step}", keep_response=True))
    assert [e.step for e in history.entries()] == [2]
    assert [e.step for e in history.turns()] == [1, 2]
    assert history.turns()[0].response == "Action: key1"
    assert History(0, rounds=0).turns() == () and History(2).turns() == ()


class RecordingClient:
    """A test double of InferenceClient: keeps each request and answers with set tool calls."""

    timeout_s = 60.0

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def chat(self, messages, **kwargs) -> ChatResult:
        self.calls.append({"messages": messages, **kwargs})
        call = {"function": {"name": "wait", "arguments": "{}"}}
        body = {"choices": [{"message": {"content": "", "tool_calls": [call]}}]}
        return ChatResult("", "tool_calls", {"prompt_tokens": 5}, 0.0, 0.0, 1, "m", body)


def test_memory_rounds_send_the_models_own_last_turns(game_row: dict) -> None:
    client = RecordingClient()
    preset = load_registry().preset("qwen2.5-vl-7b")
    policy = ServedModelPolicy(preset, client)
    player = agent(
        policy, "k0-hz0.33-base+agent.interface=tools+agent.memory_rounds=2", preset.name
    )
    player.reset(game_row)
    frames = [np.full((120, 160, 3), i * 40, dtype=np.uint8) for i in range(4)]
    for i, frame in enumerate(frames):
        player.act(frame, 3.0 * i)
    roles = [[m["role"] for m in c["messages"]] for c in client.calls]
    tail = ["user", "assistant"]
    assert [r[-1] for r in roles] == ["user"] * 4
    assert [r.count("assistant") for r in roles] == [0, 1, 2, 2]
    assert roles[3][-5:] == [*tail, *tail, "user"]
    last = client.calls[3]
    # the remembered turns are steps 1 and 2, each with its frame and its whole answer
    notes = [m for m in last["messages"] if m["role"] == "user"][:-1]
    assert [n["content"][-1]["text"].split(" (")[0] for n in notes] == [
        "Screenshot of step 1",
        "Screenshot of step 2",
    ]
    assert all(n["content"][0]["type"] == "image_url" for n in notes)
    answers = [m["content"] for m in last["messages"] if m["role"] == "assistant"]
    assert all('"name": "wait"' in a for a in answers)
    assert last["extra_body"]["tool_choice"] == "required"
    assert last["extra_body"]["parallel_tool_calls"] is False


def test_without_memory_rounds_nothing_extra_is_sent(game_row: dict) -> None:
    client = RecordingClient()
    preset = load_registry().preset("qwen2.5-vl-7b")
    player = agent(ServedModelPolicy(preset, client), "k3-hz0.33-base", preset.name)
    player.reset(game_row)
    for i in range(3):
        player.act(FRAME, 3.0 * i)
    assert all(
        [m["role"] for m in c["messages"]] in (["user"], ["system", "user"]) for c in client.calls
    )
    assert all(c["extra_body"] is None for c in client.calls)


def test_a_preset_without_a_tool_call_parser_cannot_play_the_tool_interface() -> None:
    from playsuite.agents.agent import check_agent_settings

    registry = load_registry()
    tools = Condition.parse("k0-hz0.33-base+agent.interface=tools")
    check_agent_settings(registry.preset("qwen3-vl-8b"), tools)
    check_agent_settings(registry.preset("random"), tools)  # no server: baselines answer either
    check_agent_settings(registry.preset("ui-tars-1.5-7b"), Condition.parse("k0-hz0.33-base"))
    with pytest.raises(ConfigError, match=r"serve\.tool_call_parser"):
        check_agent_settings(registry.preset("ui-tars-1.5-7b"), tools)


def test_memory_rounds_must_fit_the_servers_image_limit() -> None:
    from playsuite.agents.agent import check_agent_settings

    preset = load_registry().preset("qwen3-vl-8b")  # 4 images a prompt
    check_agent_settings(preset, Condition.parse("k0-hz0.33-base+agent.memory_rounds=3"))
    with pytest.raises(ConfigError, match="up to 5 images"):
        check_agent_settings(preset, Condition.parse("k0-hz0.33-base+agent.memory_rounds=4"))
