"""History: summaries of any family's answer, the last-k window, the rendered block."""

from __future__ import annotations

import pytest

from playsuite.agents.history import (
    ACTION_CHARS,
    OBSERVATION_CHARS,
    History,
    entry_from_response,
    render_history,
    summarize_response,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Observation: A menu with Play.\nReasoning: start it.\nAction: CLICK: 400, 300",
            ("A menu with Play.", "", "CLICK: 400, 300"),
        ),
        (
            "Observation: menu Strategy: leave the menu Reasoning: go Action: space",
            ("menu", "leave the menu", "space"),
        ),
        (
            "**Observation:** a maze\n**Strategy:** follow the left wall\n**Action:** hold:left:1",
            ("a maze", "follow the left wall", "hold:left:1"),
        ),
        (
            "Thought: The title screen. I click Play.\nAction: click(start_box='(400,300)')",
            ("The title screen. I click Play.", "", "click(start_box='(400,300)')"),
        ),
        (
            "## Thought:\nThe menu.\n## Action:\nClick play.\n## Code:\n```python\n"
            "pyautogui.click(x=1, y=2)\n```",
            ("The menu.", "", "Click play. -> pyautogui.click(x=1, y=2)"),
        ),
        (
            "thoughts:\nthe menu\nactions:\nCLICK <point>[[500,500]]</point>",
            ("the menu", "", "CLICK <point>[[500,500]]</point>"),
        ),
        (
            '<think>hmm</think>I will click Play.\n<tool_call>\n{"name": "computer_use", '
            '"arguments": {"action": "left_click", "coordinate": [500, 500]}}\n</tool_call>',
            (
                "I will click Play.",
                "",
                '{"name": "computer_use", "arguments": {"action": "left_click", '
                '"coordinate": [500, 500]}}',
            ),
        ),
        (
            "{'action': 'CLICK', 'value': None, 'position': [0.5, 0.5]}",
            ("", "", "{'action': 'CLICK', 'value': None, 'position': [0.5, 0.5]}"),
        ),
        ("", ("", "", "")),
    ],
)
def test_summaries_across_output_formats(text, expected):
    assert summarize_response(text) == expected


def test_summaries_are_one_line_and_capped():
    text = "Observation: " + "very long description\n" * 100 + "Action: " + "space " * 100
    observation, _, action = summarize_response(text)
    assert "\n" not in observation and len(observation) <= OBSERVATION_CHARS
    assert len(action) <= ACTION_CHARS and action.endswith("[...]")


def test_window_keeps_the_last_k_steps_oldest_first():
    history = History(2)
    for step in range(5):
        history.add(entry_from_response(step, 3.0 * step, f"Observation: o{step}\nAction: space"))
    assert [e.step for e in history.entries()] == [3, 4]
    text = history.render()
    assert text.splitlines()[0] == "Your previous 2 steps (oldest first):"
    assert text.index("Step 3") < text.index("Step 4")
    assert "o2" not in text


def test_screen_change_and_invalid_marks():
    history = History(3)
    history.add(entry_from_response(0, 0.0, "Action: jump please", invalid=True))
    history.mark_last(False)
    history.add(entry_from_response(1, 3.0, "Action: space"))
    history.mark_last(True)
    history.add(entry_from_response(2, 6.0, "Action: enter"))
    lines = history.render().splitlines()[1:]
    assert "could not be understood" in lines[0] and "did NOT change" in lines[0]
    assert "Result: the screen changed." in lines[1]
    assert "Result" not in lines[2]  # not known yet


def test_zero_history_keeps_and_renders_nothing():
    history = History(0)
    history.add(entry_from_response(0, 0.0, "Action: space"))
    history.mark_last(True)
    assert history.entries() == () and history.render() == ""
    assert render_history([], 0) == ""
    with pytest.raises(ValueError):
        History(-1)
