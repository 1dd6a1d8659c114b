"""The game context a Video-LLM judge reads beside the video, and the judge prompt.

What the judge is told about a game depends on where the game comes from, as in the paper:
itch.io, browser and native games are described by their store page (title, author, genre,
description, tags, controls); PyWeek and other pygame games by their README (title, author,
genre, README). This is separate from what the playing agent saw: the judge never reads the
agent's prompt. A pygame game whose README cannot be read falls back to its description, marked
as such, so the judge is never left with a title alone.
"""

from __future__ import annotations

import os
from pathlib import Path
from string import Template

from playsuite.config import ConfigError, config_dir
from playsuite.corpus import GameEntry
from playsuite.judge.schema import schema_outline

#: README text beyond this many characters is cut (a long README would crowd out the video).
README_MAX_CHARS = 6000
PROMPT_NAME = "judge_milestones"


def context_kind(game: GameEntry) -> str:
    """``readme`` for PyWeek / pygame games, ``store`` for itch.io, browser and native games."""
    return "readme" if game.source == "pyweek" or game.runtime == "pygame" else "store"


def read_readme(game: GameEntry, game_dir: str | os.PathLike[str] | None) -> str | None:
    """The game's README text (from ``game_dir / game.readme``), or ``None`` if unavailable."""
    if not game.readme or game_dir is None:
        return None
    path = Path(game_dir) / game.readme
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if len(text) > README_MAX_CHARS:
        text = text[:README_MAX_CHARS].rstrip() + "\n[... README truncated]"
    return text or None


def game_context(game: GameEntry, readme: str | None = None) -> str:
    """The context block for one game, one ``Name: value`` line (or block) per field."""
    lines = [
        f"Title: {game.title}",
        f"Author: {game.author or 'unknown'}",
        f"Genre: {game.genre or 'unknown'}",
    ]
    if context_kind(game) == "readme":
        if readme:
            lines.append(f"README:\n{readme}")
        else:
            lines.append("README: (not available)")
            if game.description:
                lines.append(f"Description (package metadata): {game.description.strip()}")
    else:
        lines.append(f"Description: {game.description.strip() or 'none'}")
        lines.append(f"Tags: {', '.join(game.tags) if game.tags else 'none'}")
        lines.append(f"Controls: {game.controls.strip() or 'not stated'}")
    return "\n".join(lines)


def load_prompt(path: str | os.PathLike[str] | None = None) -> Template:
    """The judge prompt template (``config/prompts/judge_milestones.txt`` unless ``path``)."""
    path = Path(path) if path else config_dir() / "prompts" / f"{PROMPT_NAME}.txt"
    try:
        return Template(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"judge prompt not found: {path}") from None


def render_prompt(template: Template, context: str, frames: int, duration: float) -> str:
    """Fill ``$context``, ``$frames``, ``$duration`` and ``$schema``; unknown names are errors.

    ``$schema`` is the reply's shape written out from the milestone schema
    (:func:`~playsuite.judge.schema.schema_outline`), so the prompt cannot drift from it.
    """
    values = {
        "context": context,
        "frames": frames,
        "duration": f"{duration:.0f}",
        "schema": schema_outline(),
    }
    try:
        return template.substitute(values)
    except (KeyError, ValueError) as exc:
        raise ConfigError(f"judge prompt has an unknown or malformed placeholder: {exc}") from None
