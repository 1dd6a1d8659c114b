"""What the prompts teach and what the baselines say must be understood by the real parsers."""

from __future__ import annotations

import re

import numpy as np
import pytest

from playsuite.actions import parsers
from playsuite.agents.baselines import ExplorerPolicy, RandomPolicy
from playsuite.agents.policy import StepRequest
from playsuite.agents.prompts import render_prompt
from tests.agents.frames import menu_frame


def _parse(parser: str, text: str, screen=(800, 600), image=None):
    return parsers.parse_response(parser, text, screen=screen, image=image)


def _valid(actions) -> bool:
    return bool(actions) and all(a.kind != "invalid" for a in actions)


def _forms(prompt: str) -> list[str]:
    """The example actions of the standard template's '# Actions' section."""
    start = prompt.index("# Actions\n")
    section = prompt[start : prompt.index("\n# ", start)]
    forms = []
    for line in section.splitlines():
        if not line.startswith("- "):
            continue
        examples = line.split(": ", 1)[1]
        examples = re.sub(r"\(.*?\)", "", examples)
        forms += [f.strip() for f in re.split(r"\s{3,}", examples) if f.strip()]
    return forms


def test_every_action_form_the_standard_prompt_teaches_parses(game_row):
    prompt = render_prompt("standard", game_row, screen=(800, 600), step_seconds=3)
    forms = _forms(prompt)
    assert len(forms) >= 15
    for form in forms:
        actions = _parse("standard", f"Observation: x\nReasoning: y\nAction: {form}")
        assert _valid(actions), (form, actions)
    double = _parse("standard", "Action: click:412,300 click:412,300")
    assert [a.to_dict() for a in double] == [
        {"kind": "click", "x": 412, "y": 300, "button": "left", "count": 2}
    ]


def test_fewshot_examples_parse(game_row):
    prompt = render_prompt("standard+fewshot", game_row, screen=(800, 600), step_seconds=3)
    shots = prompt[prompt.index("# Examples") : prompt.index("# Response format")]
    examples = re.findall(r"^(Observation: .*\nReasoning: .*\nAction: .*)$", shots, re.M)
    assert len(examples) == 3
    for example in examples:
        assert _valid(_parse("standard", example)), example


@pytest.mark.parametrize(
    ("template", "parser", "pattern"),
    [
        ("uitars", "uitars", r"^(Action: (?:click|press|hotkey|scroll|wait).*)$"),
        ("opencua", "opencua", r"^- ((?:pyautogui|computer)\.\w+\([^)]*\))"),
        ("computer_use", "computer_use", r"(<tool_call>\n\{.*\}\n</tool_call>)"),
        ("osatlas", "osatlas", r"^   Format: (.*)$"),
        ("showui", "showui", r"^(\{'action'.*\})$"),
    ],
)
def test_cua_template_examples_parse(template, parser, pattern, game_row):
    prompt = render_prompt(template, game_row, screen=(800, 600), step_seconds=3)
    if template == "computer_use":  # the tool preamble shows the call shape with placeholders
        prompt = prompt[prompt.index("# Response format") :]
    examples = re.findall(pattern, prompt, re.M)
    if template == "uitars":  # the action space lists calls without the 'Action:' label
        space = prompt[prompt.index("## Action Space") : prompt.index("## Note")]
        examples = [f"Action: {line.split(' #')[0]}" for line in space.splitlines()[1:] if line]
    if template == "osatlas":
        examples = [f"actions:\n{alt.strip()}" for ex in examples for alt in ex.split(" or ")]
    assert examples, template
    for example in examples:
        example = example.replace("x1,y1", "400,300").replace("x-axis, y-axis", "500,500")
        example = example.replace("'down or up'", "'down'")
        actions = _parse(parser, example, image=(812, 588))
        assert _valid(actions), (example, actions)


def test_showui_actions_the_template_lists_parse(game_row):
    prompt = render_prompt("showui", game_row, screen=(800, 600), step_seconds=3)
    listed = re.findall(r"^\d\. ([A-Z]+):", prompt, re.M)
    assert listed == ["CLICK", "HOVER", "PRESS", "ENTER", "ESC", "SCROLL"]
    values = {"PRESS": "'z'", "SCROLL": "'down'"}
    for name in listed:
        position = "[0.49, 0.42]" if name in ("CLICK", "HOVER") else "None"
        text = (
            f"{{'action': '{name}', 'value': {values.get(name, 'None')}, 'position': {position}}}"
        )
        assert _valid(_parse("showui", text)), text


def test_random_baseline_output_always_parses():
    policy = RandomPolicy(seed=7)
    frame = np.zeros((600, 800, 3), dtype=np.uint8)
    kinds = set()
    for step in range(400):
        request = StepRequest(frame, {"id": "g"}, step, step * 3.0, (800, 600), "prompt")
        reply = policy.act(request)
        actions = _parse("standard", reply.text, image=reply.image_size)
        assert _valid(actions), (reply.text, actions)
        kinds |= {a.kind for a in actions}
    assert kinds == {"key", "hold", "click", "move", "scroll", "wait"}


def test_explorer_output_always_parses(game_row):
    policy = ExplorerPolicy(seed=3)
    frame, _ = menu_frame()
    for step in range(30):
        request = StepRequest(frame, game_row, step, step * 3.0, (800, 600), "prompt")
        reply = policy.act(request)
        actions = _parse("standard", reply.text, image=reply.image_size)
        assert _valid(actions), (reply.text, actions)
