"""Prompt templates: text files under ``config/prompts/`` filled in with one game's facts.

A template is plain text with Python ``string.Template`` placeholders (``$title``, ``${title}``;
``$$`` is a literal dollar sign). Keeping the wording in files, not code, lets a user swap in the
paper's exact prompt or write a new variant without touching Python. Templates are checked when
loaded: a placeholder that is not in :data:`PLACEHOLDERS` is an error naming the file, so a typo
fails before a single game is played rather than rendering ``$titel`` into a thousand prompts.

Which template a run uses follows from its preset and condition (:func:`template_for`): the base
variant uses the preset's own template, any other variant ``v`` uses ``{template}+{v}``
(``standard+strategy``, ``standard+fewshot``), so a new ablation is a new file. Under the
generalist tool interface (condition ``agent.interface=tools``) the template is ``tools`` for
every preset, since the answer format is the tools' and no longer the family's.

A GameWorld task run (condition ``task.index=N``) puts the instruction of the row's N-th task in
``$task`` (:func:`task_block`); every template places ``$task``, which renders empty otherwise.

A template may come with a system part: ``{base}.system.txt`` beside it, where ``base`` is the
name before the first ``+``. The paper sends the generalist models one shared system instruction
and a per-step user message; keying the system file by the base name makes every variant of a
template (``standard+strategy``, ``standard+fewshot``) share the same system text by construction.
The system part is checked like the template and sent as the chat's system message
(:mod:`playsuite.agents.served`); templates without one send a single user message.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playsuite.actions.canonical import MAX_HOLD_SECONDS
from playsuite.agents.gameinfo import GameText, TextLimits, game_text
from playsuite.agents.history import History, HistoryEntry, render_history
from playsuite.config import Condition, ConfigError, config_dir

#: Every placeholder a template may use, with what it becomes.
PLACEHOLDERS: dict[str, str] = {
    "title": "game title (the id when the catalog has none)",
    "game_id": "catalog id of the game",
    "author": "developer, or 'unknown'",
    "genre": "canonical genre, or 'unknown'",
    "tags": "source tags, comma separated, or 'none'",
    "description": "developer description, HTML stripped, length-capped",
    "instructions": "developer instructions (catalog 'instructions' or the README text), capped",
    "controls": "documented controls, HTML stripped, or a note that none are documented",
    "screen_width": "width of the game screen in pixels",
    "screen_height": "height of the game screen in pixels",
    "image_width": "width of the screenshot the model sees (coordinates refer to it)",
    "image_height": "height of the screenshot the model sees",
    "step_seconds": "game time that passes per step, in seconds (e.g. 3 or 0.33)",
    "max_hold_seconds": "longest allowed key hold, in seconds",
    "history": "the history block (empty when the condition keeps no history)",
    "history_k": "how many past steps the history keeps",
    "task": "the run's task block (a task run's instruction), empty when the run has no task",
}

TEMPLATE_NAME = re.compile(r"^[a-z0-9_]+(?:\+[a-z0-9_]+)*$")
BASE_VARIANT = "base"
#: ``{base}{SYSTEM_SUFFIX}.txt`` holds the system part shared by every variant of ``base``.
SYSTEM_SUFFIX = ".system"
#: The template every preset uses under the generalist tool interface.
TOOLS_TEMPLATE = "tools"


class PromptError(ConfigError):
    """A template that is missing, badly named, or uses an unknown placeholder."""


def prompts_dir(directory: str | Path | None = None) -> Path:
    """Where templates live: ``directory`` if given, else ``config/prompts/``."""
    return Path(directory) if directory else config_dir() / "prompts"


def available_templates(directory: str | Path | None = None) -> list[str]:
    """Names of the templates present (file stems of ``*.txt``)."""
    folder = prompts_dir(directory)
    return sorted(p.stem for p in folder.glob("*.txt") if TEMPLATE_NAME.match(p.stem))


@dataclass(frozen=True)
class PromptTemplate:
    """One loaded, checked template."""

    name: str
    path: Path
    text: str
    #: The system part (``{base}.system.txt``), or ``None`` when the template has none.
    system: PromptTemplate | None = None

    @property
    def placeholders(self) -> frozenset[str]:
        return frozenset(string.Template(self.text).get_identifiers())

    def render_system(self, values: Mapping[str, str]) -> str:
        """The system message, or ``""`` when the template has no system part."""
        return self.system.render(values) if self.system is not None else ""

    def render(self, values: Mapping[str, str]) -> str:
        try:
            text = string.Template(self.text).substitute(values)
        except KeyError as exc:  # a checked template only misses values a caller forgot
            raise PromptError(f"{self.path}: no value for placeholder ${exc.args[0]}") from None
        return _tidy(text)


def _tidy(text: str) -> str:
    """Drop trailing spaces and runs of blank lines left by empty blocks (no history)."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)) + "\n"


def system_path(name: str, directory: str | Path | None = None) -> Path:
    """Where the system part of template ``name`` lives (it may not exist)."""
    return prompts_dir(directory) / f"{name.split('+', 1)[0]}{SYSTEM_SUFFIX}.txt"


def load_template(name: str, directory: str | Path | None = None) -> PromptTemplate:
    """Read ``{name}.txt`` (and its system part, if any) and check their placeholders."""
    if not TEMPLATE_NAME.match(name):
        raise PromptError(
            f"template name {name!r} is not valid: use lower-case words joined by '+', "
            "e.g. 'standard' or 'standard+strategy'"
        )
    path = prompts_dir(directory) / f"{name}.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        known = ", ".join(available_templates(directory)) or "none"
        raise PromptError(f"no prompt template {name!r} ({path}); available: {known}") from None
    system_file = system_path(name, directory)
    system = None
    if system_file.is_file():
        system_name = system_file.name.removesuffix(".txt")
        system_text = system_file.read_text(encoding="utf-8")
        system = PromptTemplate(system_name, system_file, _checked(system_file, system_text))
    return PromptTemplate(name=name, path=path, text=_checked(path, text), system=system)


def _checked(path: Path, text: str) -> str:
    """``text`` if it is a valid template using only known placeholders, else a PromptError."""
    template = string.Template(text)
    if not template.is_valid():
        raise PromptError(
            f"{path}: a '$' that is not a placeholder; write '$$' for a literal dollar sign"
        )
    unknown = sorted(set(template.get_identifiers()) - set(PLACEHOLDERS))
    if unknown:
        raise PromptError(
            f"{path}: unknown placeholder(s) {', '.join('$' + u for u in unknown)}; "
            f"known: {', '.join('$' + p for p in PLACEHOLDERS)}"
        )
    return text


def template_for(
    preset: Any, condition: Condition | str, directory: str | Path | None = None
) -> str:
    """The template a (preset, condition) run uses; raises when that variant has no file.

    ``preset`` is a registry :class:`~playsuite.registry.Preset` or a template name.
    """
    base = preset if isinstance(preset, str) else preset.template
    cond = Condition.parse(condition) if isinstance(condition, str) else condition
    if cond.setting("agent.interface") == "tools":
        base = TOOLS_TEMPLATE
    name = base if cond.variant == BASE_VARIANT else f"{base}+{cond.variant}"
    if not (prompts_dir(directory) / f"{name}.txt").is_file():
        who = base if isinstance(preset, str) else f"preset {preset.name!r} (template {base!r})"
        raise PromptError(
            f"condition {cond.name!r} with {who} needs prompt template {name!r}, which does not "
            f"exist in {prompts_dir(directory)}; available: "
            f"{', '.join(available_templates(directory)) or 'none'}"
        )
    return name


def task_instruction(game: Mapping[str, Any] | Any, condition: Condition) -> str:
    """The instruction of the task a condition's ``task.index`` names in ``game`` (a corpus row
    as a mapping or a GameEntry); ``""`` when the condition names none or the row has no task
    at that position (such an episode is no task run: playsuite.analysis.tasks skips it)."""
    index = condition.get("task.index")
    if index is None:
        return ""
    tasks = game.get("tasks") if isinstance(game, Mapping) else getattr(game, "tasks", None)
    tasks = list(tasks or [])
    if index >= len(tasks):
        return ""
    return " ".join(str(tasks[index]["instruction"]).split())


def task_block(instruction: str) -> str:
    """The ``$task`` text: a heading and the instruction, or ``""`` without one."""
    if not instruction:
        return ""
    return (
        "# Your task\n"
        f"{instruction}\n"
        "This run is scored on this task alone, read from the game's own state: work towards it "
        "before anything else, and once it is done keep playing well."
    )


def format_seconds(seconds: float) -> str:
    """``3`` for 3.0, ``0.33`` for 1/3: short and unambiguous in prose."""
    return f"{round(seconds, 2):g}"


def _size(value: tuple[int, int] | None, what: str) -> tuple[int, int]:
    if value is None or len(value) != 2 or min(int(value[0]), int(value[1])) <= 0:
        raise ValueError(f"{what} must be (width, height) in pixels, got {value!r}")
    return int(value[0]), int(value[1])


def prompt_values(
    game: GameText,
    *,
    screen: tuple[int, int],
    image: tuple[int, int] | None = None,
    step_seconds: float,
    history: Iterable[HistoryEntry] | History = (),
    history_k: int = 0,
    task: str = "",
) -> dict[str, str]:
    """Values for every placeholder in :data:`PLACEHOLDERS`; ``task`` is a task instruction."""
    sw, sh = _size(screen, "screen")
    iw, ih = _size(image or screen, "image")
    if step_seconds <= 0:
        raise ValueError(f"step_seconds must be positive, got {step_seconds}")
    if isinstance(history, History):
        history_k, entries = history.k, history.entries()
    else:
        entries = tuple(history)
    return {
        "title": game.title,
        "game_id": game.id,
        "author": game.author,
        "genre": game.genre,
        "tags": game.tags,
        "description": game.description,
        "instructions": game.instructions,
        "controls": game.controls,
        "screen_width": str(sw),
        "screen_height": str(sh),
        "image_width": str(iw),
        "image_height": str(ih),
        "step_seconds": format_seconds(step_seconds),
        "max_hold_seconds": format_seconds(MAX_HOLD_SECONDS),
        "history": render_history(entries, history_k),
        "history_k": str(history_k),
        "task": task_block(task),
    }


@dataclass(frozen=True)
class EpisodePrompt:
    """A template bound to one game and condition; renders each step's prompt.

    The game's text is cleaned once per episode; each step supplies only what changes (the
    history) and the sizes. ``image`` is the size of the screenshot the model is given, which a
    policy that resizes frames must pass: coordinates in the answer refer to it.
    """

    template: PromptTemplate
    game: GameText
    step_seconds: float
    history_k: int = 0
    #: the instruction of the run's task (condition ``task.index``), or ``""``
    task: str = ""

    @classmethod
    def for_run(
        cls,
        preset: Any,
        condition: Condition | str,
        game: Mapping[str, Any] | Any,
        *,
        readme_text: str | None = None,
        limits: TextLimits | None = None,
        directory: str | Path | None = None,
    ) -> EpisodePrompt:
        cond = Condition.parse(condition) if isinstance(condition, str) else condition
        template = load_template(template_for(preset, cond, directory), directory)
        text = game_text(game, readme_text, limits)
        task = task_instruction(game, cond)
        return cls(template, text, cond.step_seconds, cond.history_k, task)

    def render(
        self,
        screen: tuple[int, int],
        image: tuple[int, int] | None = None,
        history: Iterable[HistoryEntry] | History = (),
    ) -> str:
        """The user message of one step."""
        if isinstance(history, History):
            history = history.entries()
        return self.template.render(self._values(screen, image, history))

    def render_system(self, screen: tuple[int, int], image: tuple[int, int] | None = None) -> str:
        """The system message (the same every step), or ``""`` when the template has none."""
        return self.template.render_system(self._values(screen, image, ()))

    def _values(
        self,
        screen: tuple[int, int],
        image: tuple[int, int] | None,
        history: Iterable[HistoryEntry],
    ) -> dict[str, str]:
        return prompt_values(
            self.game,
            screen=screen,
            image=image,
            step_seconds=self.step_seconds,
            history=history,
            history_k=self.history_k,
            task=self.task,
        )


def render_prompt(
    template: str | PromptTemplate,
    game: Mapping[str, Any] | Any,
    *,
    screen: tuple[int, int],
    image: tuple[int, int] | None = None,
    step_seconds: float,
    history: Iterable[HistoryEntry] | History = (),
    history_k: int = 0,
    readme_text: str | None = None,
    limits: TextLimits | None = None,
    directory: str | Path | None = None,
    with_system: bool = False,
    task: str = "",
) -> str:
    """Render one prompt: ``template`` (a name or a loaded template) for a catalog row.

    The result is the user message; ``with_system`` puts the system part (if any) before it,
    separated by a blank line, which is what a reader of the whole prompt wants to see.
    """
    if not isinstance(template, PromptTemplate):
        template = load_template(template, directory)
    values = prompt_values(
        game_text(game, readme_text, limits),
        screen=screen,
        image=image,
        step_seconds=step_seconds,
        history=history,
        history_k=history_k,
        task=task,
    )
    user = template.render(values)
    system = template.render_system(values) if with_system else ""
    return f"{system}\n{user}" if system else user
