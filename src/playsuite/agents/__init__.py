"""Agents: prompt templates and history, the policy interface, and the baseline players.

- :mod:`playsuite.agents.prompts` renders ``config/prompts/*.txt`` for a game and a condition.
- :mod:`playsuite.agents.history` keeps the last k steps and renders them for the prompt.
- :mod:`playsuite.agents.policy` defines ``StepRequest``, ``PolicyReply`` and ``Policy``.
- :mod:`playsuite.agents.baselines` holds the ``random`` and ``explorer`` players.
- :mod:`playsuite.agents.agent` holds :class:`~playsuite.agents.agent.Agent`, which plays
  with all of the above plus the preset's parser (imported from there: it needs the inference
  client's errors, which this package's import leaves out).
"""

from __future__ import annotations

from playsuite.exports import lazy_exports

# Exports load on first use: the workflow's planner needs only the prompt templates, and every
# Snakemake start (one per Slurm job) would otherwise pay for the baselines' image code (scipy).
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("BASELINES", "ExplorerPolicy", "RandomPolicy", "make_baseline"), "baselines"),
    **dict.fromkeys(("GameText", "documented_controls", "game_text", "strip_html"), "gameinfo"),
    **dict.fromkeys(
        ("History", "HistoryEntry", "entry_from_response", "render_history"), "history"
    ),
    **dict.fromkeys(("Policy", "PolicyReply", "StepRequest"), "policy"),
    **dict.fromkeys(
        (
            "PLACEHOLDERS",
            "EpisodePrompt",
            "PromptError",
            "available_templates",
            "load_template",
            "render_prompt",
            "template_for",
        ),
        "prompts",
    ),
}

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

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
