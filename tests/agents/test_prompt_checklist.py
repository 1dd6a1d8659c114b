"""docs/prompts.md's checklist against the paper's six prompt listings, walked item by item.

Each row names one instruction, placeholder, rule or field of a listing and the phrase of our
template that carries it. The phrase must occur once in the named file and, placeholders filled
in, in the prompt the package renders from that file for a sample game; each listing must keep
at least as many rows as it has items, so deleting a template line or a checklist row fails.
"""

from __future__ import annotations

import re
import shutil
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from playsuite.agents.gameinfo import game_text
from playsuite.agents.history import History, entry_from_response
from playsuite.agents.prompts import (
    SYSTEM_SUFFIX,
    available_templates,
    load_template,
    prompt_values,
    prompts_dir,
)
from playsuite.corpus import GameEntry
from playsuite.judge import context as judge_context
from playsuite.judge.schema import milestone_schema, schema_outline

DOC = Path(__file__).resolve().parents[2] / "docs" / "prompts.md"
CHECKLIST_HEADING = "## Checklist against the paper's listings"

#: Rows each listing needs at least: the items the paper's listing has (our extras come on top).
MIN_ITEMS = {
    "system": 18,  # role, goal, 7 control rules, 3 visual cues, 4 loop rules, 2 exploration
    "user": 44,  # 6 placeholders, 11 control rules, 5 mouse/end-state rules, 10 action forms,
    #             5 decision rules, step-by-step, 3 fields, no-other-words, the closing cue
    "computer_use": 23,  # framing, 4 placeholders, goal, menus, 6 key rules, mouse, 3 end-state
    #                     rules, terminate, wait, no repeats, the previous-actions section
    "fewshot": 10,  # the section and three examples of three fields each
    "strategy": 5,  # four fields in order and the unchanged system part
    "judge": 38,  # 5 global rules, 4 task rules, 12 fields with their 17 definition details
}
SAMPLE_README = "<h1>How to play</h1><p>Reach the <b>golden star</b> at the top.</p>"
SAMPLE_SCREEN, SAMPLE_IMAGE = (800, 600), (1280, 960)
STANDARD_VARIANTS = ("standard", "standard+strategy", "standard+fewshot")
CODE_SPAN = re.compile(r"^(`+)(.*?)\1$")


@dataclass(frozen=True)
class Item:
    section: str
    id: str
    name: str
    file: str
    phrase: str


def _code(cell: str) -> str:
    """The content of a markdown code span (CommonMark: one padding space each side stripped)."""
    match = CODE_SPAN.match(cell.strip())
    if match is None:
        raise ValueError(f"not a code span: {cell!r}")
    text = match.group(2)
    if len(text) > 2 and text[0] == " " and text[-1] == " ":
        text = text[1:-1]
    return text


def parse_checklist(text: str) -> list[Item]:
    """Every row of every ``### section`` table below the checklist heading."""
    items: list[Item] = []
    section = None
    for line in text[text.index(CHECKLIST_HEADING) :].splitlines()[1:]:
        if line.startswith("## "):
            break
        if line.startswith("### "):
            section = line[4:].split(":", 1)[0].strip()
            continue
        if not line.startswith("| ") or line.startswith(("| id ", "|---")):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 4 and section, f"malformed checklist row: {line!r}"
        items.append(Item(section, cells[0], cells[1], _code(cells[2]), _code(cells[3])))
    return items


ITEMS = parse_checklist(DOC.read_text(encoding="utf-8"))


def _flat(text: str) -> str:
    return " ".join(text.split())


def _history() -> History:
    history = History(3)
    history.add(entry_from_response(4, 12.0, "Observation: The title menu.\nAction: enter"))
    history.mark_last(False)
    return history


def _sample_row() -> dict:
    return {
        "id": "star-hopper",
        "title": "Star <i>Hopper</i>",
        "author": "Ada Dev",
        "genre": "Platformer",
        "tags": ["Platformer", "Pixel Art"],
        "description": "<p>Hop between <b>stars</b> &amp; collect gems.</p>",
        "controls": "Arrow keys to move, Z to jump, X to dash.",
        "source": "itch",
        "runtime": "browser",
        "package": "star-hopper.zip",
        "entry": "index.html",
    }


@cache
def _rendered(file: str, directory: Path) -> tuple[tuple[str, dict[str, str]], ...]:
    """(rendered prompt, placeholder values) pairs in which ``file``'s phrases must show up."""
    if file == "judge_milestones.txt":
        game = GameEntry.from_dict(_sample_row())
        values = {
            "context": judge_context.game_context(game),
            "frames": "24",
            "duration": "24",
            "schema": schema_outline(),
        }
        template = judge_context.load_prompt(directory / file)
        text = judge_context.render_prompt(template, values["context"], 24, 24.0)
        return ((text, values),)
    stem = file.removesuffix(".txt")
    names = [stem]
    if stem.endswith(SYSTEM_SUFFIX):  # the system part must reach every variant of its base
        base = stem.removesuffix(SYSTEM_SUFFIX)
        names = [n for n in available_templates(directory) if n.split("+", 1)[0] == base]
    values = prompt_values(
        game_text(_sample_row(), SAMPLE_README),
        screen=SAMPLE_SCREEN,
        image=SAMPLE_IMAGE,
        step_seconds=3.0,
        history=_history(),
    )
    out = []
    for name in names:
        template = load_template(name, directory)
        text = template.render(values)
        if stem.endswith(SYSTEM_SUFFIX):
            text = template.render_system(values)
        out.append((text, values))
    return tuple(out)


def problems(items: list[Item], directory: Path) -> dict[str, str]:
    """Item id -> what is wrong with it; empty when every item is carried by its template."""
    found: dict[str, str] = {}
    for item in items:
        path = directory / item.file
        if not path.is_file():
            found[item.id] = f"{item.file} does not exist"
            continue
        count = path.read_text(encoding="utf-8").count(item.phrase)
        if count != 1:
            found[item.id] = f"{item.file} holds {item.phrase!r} {count} times, not once"
            continue
        for text, values in _rendered(item.file, directory):
            expected = string.Template(item.phrase).safe_substitute(values)
            if _flat(expected) not in _flat(text):
                found[item.id] = f"the prompt rendered from {item.file} lacks {expected!r}"
                break
    return found


def test_checklist_covers_every_listing():
    counts = {section: 0 for section in MIN_ITEMS}
    for item in ITEMS:
        assert item.section in counts, f"{item.id}: unknown section {item.section!r}"
        counts[item.section] += 1
    for section, least in MIN_ITEMS.items():
        assert counts[section] >= least, f"{section}: {counts[section]} items, needs {least}"
    ids = [item.id for item in ITEMS]
    assert len(ids) == len(set(ids)), "checklist ids repeat"
    assert all(item.name and item.phrase.strip() for item in ITEMS)


def test_every_item_is_carried_by_its_template_and_the_rendered_prompt():
    assert problems(ITEMS, prompts_dir()) == {}


def test_the_judge_section_names_every_schema_field():
    phrases = " ".join(item.phrase for item in ITEMS if item.section == "judge")
    for name in milestone_schema()["required"]:
        assert f"- {name}:" in phrases, name  # each field has a definition line
    assert "$schema" in phrases and "$context" in phrases


def test_user_template_items_hold_in_both_variants():
    """The variants add lines to standard.txt and change none (the paper: format excerpt only)."""
    base = load_template("standard").text.splitlines()
    for name in ("standard+strategy", "standard+fewshot"):
        lines = iter(load_template(name).text.splitlines())
        missing = [line for line in base if not any(line == other for other in lines)]
        assert missing == [], (name, missing)


def test_strategy_field_sits_between_observation_and_reasoning():
    text, _ = _rendered("standard+strategy.txt", prompts_dir())[0]
    tail = text[text.index("# Response format") :]
    labels = re.findall(r"^(\w+): ", tail, re.M)
    assert labels == ["Observation", "Strategy", "Reasoning", "Action"]


@pytest.mark.parametrize("file", sorted({item.file for item in ITEMS}))
def test_removing_any_checklisted_line_fails_the_check(file, tmp_path: Path):
    """Delete each line that carries an item: the checker must name that item."""
    source = prompts_dir()
    own = [item for item in ITEMS if item.file == file]
    lines = (source / file).read_text(encoding="utf-8").splitlines(keepends=True)
    carried = sorted({i for item in own for i, line in enumerate(lines) if item.phrase in line})
    assert carried, file
    for index in carried:
        folder = tmp_path / str(index)
        shutil.copytree(source, folder)
        (folder / file).write_text("".join(lines[:index] + lines[index + 1 :]), encoding="utf-8")
        hit = {item.id for item in own if item.phrase in lines[index]}
        found = problems(own, folder)
        assert hit <= set(found), (file, lines[index], hit - set(found))
