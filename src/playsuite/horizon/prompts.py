"""The horizon prompts: plain-text templates in ``config/prompts/horizon_*.txt``.

Written for this project after GameHorizon's description of its annotation prompts: every one
gives the game, the span's duration, the sampling rate and the indices of the frames shown; the
operation and goal prompts add the game's controls (its key bindings) and the aligned inputs, the
strategy prompt leaves inputs out; each asks for the instruction alone. ``merge`` asks for the
bottom-up merge decisions, ``question`` frames a multiple-choice question. A user who wants other
wording replaces the files; unknown or missing placeholders are errors, not blanks.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from playsuite.config import ConfigError, config_dir

#: Template names (``config/prompts/horizon_{name}.txt``).
NAMES = ("operation", "goal", "strategy", "merge", "question")


@dataclass(frozen=True)
class HorizonPrompts:
    """The five templates, loaded once per job."""

    templates: Mapping[str, Template]

    def render(self, name: str, **values: Any) -> str:
        try:
            return self.templates[name].substitute({k: str(v) for k, v in values.items()})
        except KeyError as exc:
            raise ConfigError(f"horizon prompt {name!r} needs a value for {exc}") from None
        except ValueError as exc:
            raise ConfigError(f"horizon prompt {name!r} is malformed: {exc}") from None


def load_prompts(folder: str | os.PathLike[str] | None = None) -> HorizonPrompts:
    """The templates from ``folder`` (default: ``config/prompts``)."""
    base = Path(folder) if folder else config_dir() / "prompts"
    templates = {}
    for name in NAMES:
        path = base / f"horizon_{name}.txt"
        try:
            templates[name] = Template(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"horizon prompt not found: {path}") from None
    return HorizonPrompts(templates)
