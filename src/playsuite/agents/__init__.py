"""Agents: prompt templates and history, the policy interface, and the baseline players.

- :mod:`playsuite.agents.prompts` renders ``config/prompts/*.txt`` for a game and a condition.
- :mod:`playsuite.agents.history` keeps the last k steps and renders them for the prompt.
- :mod:`playsuite.agents.policy` defines ``StepRequest``, ``PolicyReply`` and ``Policy``.
- :mod:`playsuite.agents.baselines` holds the ``random`` and ``explorer`` players.
- :mod:`playsuite.agents.agent` holds :class:`~playsuite.agents.agent.Agent`, which plays
  with all of the above plus the preset's parser (imported from there: it needs the inference
  client's errors, which this package's import leaves out).
"""

from playsuite.agents.baselines import BASELINES, ExplorerPolicy, RandomPolicy, make_baseline
from playsuite.agents.gameinfo import GameText, documented_controls, game_text, strip_html
from playsuite.agents.history import History, HistoryEntry, entry_from_response, render_history
from playsuite.agents.policy import Policy, PolicyReply, StepRequest
from playsuite.agents.prompts import (
    PLACEHOLDERS,
    EpisodePrompt,
    PromptError,
    available_templates,
    load_template,
    render_prompt,
    template_for,
)

__all__ = [
    "BASELINES",
    "PLACEHOLDERS",
    "EpisodePrompt",
    "ExplorerPolicy",
    "GameText",
    "History",
    "HistoryEntry",
    "Policy",
    "PolicyReply",
    "PromptError",
    "RandomPolicy",
    "StepRequest",
    "available_templates",
    "documented_controls",
    "entry_from_response",
    "game_text",
    "load_template",
    "make_baseline",
    "render_history",
    "render_prompt",
    "strip_html",
    "template_for",
]
