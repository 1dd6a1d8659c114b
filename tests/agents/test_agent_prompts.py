"""Prompt templates: required content, every template for every preset, variants, errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from playsuite.agents.history import History, entry_from_response
from playsuite.agents.prompts import (
    PLACEHOLDERS,
    EpisodePrompt,
    PromptError,
    available_templates,
    load_template,
    render_prompt,
    template_for,
)
from playsuite.config import Condition
from playsuite.registry import load_registry

REQUIRED_TEMPLATES = {
    "standard",
    "computer_use",
    "uitars",
    "opencua",
    "osatlas",
    "showui",
    "standard+strategy",
    "standard+fewshot",
}
CONDITIONS = (
    "k0-hz0.33-base",
    "k3-hz0.33-base",
    "k3-hz0.33-strategy",
    "k3-hz0.33-fewshot",
    "k0-hz3-base",
)


def _history(k: int = 3) -> History:
    history = History(k)
    history.add(
        entry_from_response(
            4, 12.0, "Observation: The title menu.\nReasoning: start.\nAction: enter"
        )
    )
    history.mark_last(False)
    history.add(
        entry_from_response(5, 15.0, "Observation: Still the menu.\nAction: CLICK: 400, 300")
    )
    history.mark_last(True)
    return history


def test_all_required_templates_exist():
    assert set(available_templates()) >= REQUIRED_TEMPLATES


def test_standard_prompt_carries_every_required_element(game_row):
    text = render_prompt(
        "standard",
        game_row,
        screen=(800, 600),
        image=(1280, 960),
        step_seconds=3.0,
        history=_history().entries(),
        history_k=3,
        readme_text="<h1>How to play</h1><p>Reach the <b>golden star</b> at the top.</p>",
    )
    # game facts, HTML stripped
    assert "Title: Star Hopper" in text
    assert "Genre: Action" in text
    assert "Developer: Ada Dev" in text
    assert "Hop between stars & collect gems." in text
    assert "track()" not in text and "<" not in text.split("# Your goal")[0]
    assert "Reach the golden star at the top." in text
    assert "Arrow keys to move, Z to jump, X to dash." in text
    # history block, with the no-change signal
    assert "Your previous 2 steps (oldest first):" in text
    assert "Step 4 (game time 12.0 s):" in text and "the screen did NOT change" in text
    # control rules: documented first, then the fallback defaults in order
    documented = text.index("Treat the instructions and controls above as authoritative")
    fallback = text.index("a (left), d (right), w (up), s (down)")
    assert documented < fallback
    for key in ("space to jump", "enter to start", "escape", "CLICK: x, y", "z, x, c, q, e, r, f"):
        assert key in text[fallback:], key
    assert "number keys 1 to 5" in text[fallback:]
    # mouse rules: menus, the left button, aiming; the screenshot size the model sees
    assert "Menus and buttons" in text and "left mouse button" in text and "Aiming" in text
    assert "1280 pixels wide and 960 pixels high" in text
    # game over and continue handling: the button, else enter first
    assert '"Game Over"' in text and '"Try Again"' in text and "enter first" in text
    # the action grammar, every form
    for form in (
        "space",
        "shift+a",
        "hold:left:0.8",
        "hold:right+space:0.5",
        "wait",
        "CLICK: 412, 300",
        "rightclick:412,300",
        "click:412,300 click:412,300",
        "scroll:up",
        "scroll:down:5",
        "move:412,300",
        "move:+40,-10",
        "move:-120,+0:0.5",
    ):
        assert form in text, form
    assert "at most 2" in text  # the hold cap, from the canonical action limit
    # loop prevention
    assert "If nothing changed" in text
    assert "Never use the same action more than twice in a row without visible progress" in text
    assert "change your strategy" in text
    # response format, last
    tail = text[text.index("# Response format") :]
    assert re.search(r"^Observation: .*\n^Reasoning: .*\n^Action: ", tail, re.M)
    assert "3 seconds" in text
    assert "$" not in text
    # the shared system part is a separate message, not in the user text
    assert "leftover HTML markup" not in text


@pytest.mark.parametrize("condition", CONDITIONS)
def test_every_template_renders_for_every_preset(condition, game_row):
    registry = load_registry()
    cond = Condition.parse(condition)
    rendered = 0
    for preset in registry.presets.values():
        if cond.variant != "base" and preset.template != "standard":
            with pytest.raises(PromptError, match=f"{preset.template}\\+{cond.variant}"):
                template_for(preset, cond)
            continue
        prompt = EpisodePrompt.for_run(preset, cond, game_row)
        text = prompt.render((800, 600), history=_history(cond.history_k) if cond.history_k else ())
        rendered += 1
        assert "Star Hopper" in text and "Hop between stars" in text, preset.name
        assert "Arrow keys to move" in text, preset.name
        assert "$" not in text.replace("$$", ""), preset.name
        assert ("Still the menu." in text) == (cond.history_k > 0), preset.name
        assert "more than twice" in text, preset.name
    assert rendered >= 10


def test_variant_templates():
    registry = load_registry()
    qwen = registry.preset("qwen3-vl-8b")
    assert template_for(qwen, "k0-hz0.33-base") == "standard"
    assert template_for(qwen, "k3-hz0.33-strategy") == "standard+strategy"
    assert template_for(qwen, "k3-hz0.33-fewshot") == "standard+fewshot"
    assert template_for(registry.preset("ui-tars-1.5-7b"), "k3-hz0.33-base") == "uitars"
    with pytest.raises(PromptError, match="standard\\+nosuch"):
        template_for(qwen, "k0-hz0.33-nosuch")


def test_strategy_and_fewshot_variants(game_row):
    strategy = render_prompt("standard+strategy", game_row, screen=(640, 480), step_seconds=3)
    tail = strategy[strategy.index("# Response format") :]
    assert re.search(r"^Observation: .*\n^Strategy: .*\n^Reasoning: .*\n^Action: ", tail, re.M)
    fewshot = render_prompt("standard+fewshot", game_row, screen=(640, 480), step_seconds=3)
    assert len(re.findall(r"^Example \d", fewshot, re.M)) == 3
    assert len(re.findall(r"^Action: ", fewshot, re.M)) == 4  # three examples + the format


@pytest.mark.parametrize(
    ("template", "markers"),
    [
        ("uitars", ["Thought: ...", "Action: ...", "click(start_box='(x1,y1)')", "hotkey(key="]),
        ("opencua", ["## Thought:", "## Action:", "## Code:", "pyautogui.click(x=412, y=300)"]),
        ("osatlas", ["thoughts:", "actions:", "CLICK <point>[[x-axis, y-axis]]</point>"]),
        ("showui", ["{'action': 'CLICK', 'value': None, 'position': [0.49, 0.42]}"]),
        ("computer_use", ["<tool_call>", '"name": "computer_use"', "1000x1000"]),
    ],
)
def test_cua_templates_ask_for_the_native_format(template, markers, game_row):
    text = render_prompt(template, game_row, screen=(800, 600), image=(812, 588), step_seconds=3)
    for marker in markers:
        assert marker in text, marker
    assert "Star Hopper" in text and "Ada Dev" in text and "Platformer" in text
    assert "Arrow keys to move" in text
    if template in ("uitars", "opencua"):
        assert "812 pixels wide and 588 pixels high" in text  # pixels of the resized image


def test_missing_fields_render_gracefully():
    text = render_prompt("standard", {"id": "mystery"}, screen=(320, 240), step_seconds=1 / 3)
    assert "Title: mystery" in text
    assert "Developer: unknown" in text and "Genre: unknown" in text
    assert "No description was provided." in text
    assert "No separate instructions were provided." in text
    assert "None documented." in text
    assert "0.33 seconds" in text
    assert "None" not in text.replace("None documented", "")
    assert "previous" not in text  # no history block for k = 0


def test_history_block_on_the_first_step(game_row):
    text = render_prompt("standard", game_row, screen=(320, 240), step_seconds=3, history_k=3)
    assert "Your previous steps: none yet, this is the first step." in text


def test_long_text_is_capped(game_row):
    row = dict(game_row, description="word " * 5000)
    text = render_prompt("standard", row, screen=(320, 240), step_seconds=3)
    assert len(text) < 9000 and "[...]" in text


def test_unknown_placeholder_is_an_error_naming_the_file(tmp_path: Path):
    (tmp_path / "mine.txt").write_text("Play $titel now\n")
    with pytest.raises(PromptError, match=r"mine\.txt.*\$titel"):
        load_template("mine", tmp_path)


def test_stray_dollar_is_an_error_and_double_dollar_is_literal(tmp_path: Path, game_row):
    (tmp_path / "bad.txt").write_text("Costs 5 $ only\n")
    with pytest.raises(PromptError, match=r"\$\$"):
        load_template("bad", tmp_path)
    (tmp_path / "good.txt").write_text("$title costs $$5\n")
    text = render_prompt("good", game_row, screen=(10, 10), step_seconds=1, directory=tmp_path)
    assert text == "Star Hopper costs $5\n"


def test_missing_or_badly_named_template(tmp_path: Path):
    with pytest.raises(PromptError, match="no prompt template 'nope'"):
        load_template("nope", tmp_path)
    with pytest.raises(PromptError, match="not valid"):
        load_template("../etc/passwd", tmp_path)


def test_bad_sizes_are_rejected(game_row):
    with pytest.raises(ValueError, match="screen"):
        render_prompt("standard", game_row, screen=(0, 600), step_seconds=3)
    with pytest.raises(ValueError, match="step_seconds"):
        render_prompt("standard", game_row, screen=(800, 600), step_seconds=0)


def test_every_agent_template_uses_only_documented_placeholders():
    for name in REQUIRED_TEMPLATES:
        assert load_template(name).placeholders <= set(PLACEHOLDERS), name
