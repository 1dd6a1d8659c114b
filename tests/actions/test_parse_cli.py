"""``playsuite parse``: the command-line contract of DESIGN.md §3."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from playsuite.actions.parsers import PARSER_NAMES
from playsuite.cli import main

#: One realistic answer per parser, each meaning "click the centre of a 1920x1080 screen".
CENTRE = {
    "standard": "Observation: menu\nReasoning: play\nAction: click:640,360",  # --image 1280x720
    "qwen3": "Action: click:500,500",
    "computer_use": '<tool_call>{"name": "computer_use", "arguments": '
    '{"action": "left_click", "coordinate": [499.5, 499.5]}}</tool_call>',
    "uitars": "Thought: play\nAction: click(start_box='(644,364)')",  # 1288x728 seen
    "opencua": "## Code:\n```python\npyautogui.click(x=644, y=364)\n```",
    "osatlas": "thoughts:\nplay\nactions:\nCLICK <point>[[500,500]]</point>",
    "showui": "{'action': 'CLICK', 'value': None, 'position': [0.5, 0.5]}",
    "tools": '<tool_call>\n{"name": "click", "arguments": {"x": 640, "y": 360}}\n</tool_call>',
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["parse", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", PARSER_NAMES)
def test_every_parser_through_the_command_line(capsys, name) -> None:
    code, out, _ = run(
        capsys, "--parser", name, "--screen", "1920x1080", "--image", "1280x720", CENTRE[name]
    )
    assert code == 0
    assert json.loads(out) == [{"kind": "click", "x": 960, "y": 540, "button": "left", "count": 1}]


def test_stdin_options_and_invalid_answers(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("Action: scroll:down:3"))
    code, out, _ = run(capsys, "--parser", "standard", "--screen", "640x480", "-")
    assert code == 0 and json.loads(out) == [{"kind": "scroll", "direction": "down", "notches": 3}]
    code, out, _ = run(
        capsys,
        "--parser",
        "osatlas",
        "--screen",
        "640x480",
        "--option",
        "scroll_notches=2",
        "actions:\nSCROLL [UP]",
    )
    assert json.loads(out) == [{"kind": "scroll", "direction": "up", "notches": 2}]
    code, out, _ = run(capsys, "--parser", "standard", "--screen", "640x480", "no idea")
    assert code == 0 and json.loads(out)[0]["kind"] == "invalid"


def test_configuration_errors_exit_2(capsys) -> None:
    code, _, err = run(
        capsys, "--parser", "standard", "--screen", "640x480", "--option", "nope=1", "x"
    )
    assert code == 2 and "no option 'nope'" in err
    with pytest.raises(SystemExit) as exc:
        main(["parse", "--parser", "standard", "--screen", "640by480", "x"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        main(["parse", "--parser", "gpt", "--screen", "640x480", "x"])


@pytest.mark.slow
def test_installed_command(tmp_path) -> None:
    exe = [sys.executable, "-m", "playsuite.cli"]
    done = subprocess.run(
        [
            *exe,
            "parse",
            "--parser",
            "uitars",
            "--screen",
            "1920x1080",
            "Action: hotkey(key='ctrl c')",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(done.stdout) == [{"kind": "key", "keys": ["ctrl", "c"]}]
