"""Step history: what the model saw and did in its last k steps, as prompt text.

Conditions ``k{K}-...`` give the model a memory of its last K steps (the paper's history
ablation). A step is remembered as a short observation summary, the action text, whether the
screen changed afterwards (the signal loop prevention relies on), and, in the strategy variant,
the plan the model stated. Summaries are cut short so that history stays a small, fixed share of
the prompt whatever the model wrote.

GameWorld's memory ablation remembers differently: the model's own last N turns, whole (that
step's screenshot and its full answer), sent again as earlier turns of the chat (condition
``agent.memory_rounds``). The same :class:`History` keeps both: ``k`` entries are rendered as the
text block, the last ``rounds`` are :meth:`History.turns`, each with its frame and ``response``.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from playsuite.agents.gameinfo import truncate

OBSERVATION_CHARS = 240
STRATEGY_CHARS = 200
ACTION_CHARS = 160


@dataclass(frozen=True)
class HistoryEntry:
    """One past step.

    ``screen_changed`` is ``None`` when unknown (the next frame was not compared yet).
    ``frame`` is the screen the step acted on; the harness keeps it only for presets that send
    previous frames as images, and it never appears in the text.
    """

    step: int
    t_game: float
    observation: str
    action: str
    invalid: bool = False
    screen_changed: bool | None = None
    strategy: str = ""
    frame: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: the model's whole answer (kept for memory turns; never rendered into the text block)
    response: str = field(default="", repr=False, compare=False)

    def line(self) -> str:
        parts = [f"Step {self.step} (game time {self.t_game:.1f} s):"]
        if self.strategy:
            parts.append(f"Strategy: {self.strategy}")
        parts.append(f"Observation: {self.observation or '(none given)'}")
        action = self.action or "(none)"
        if self.invalid:
            action += " (could not be understood, nothing was done)"
        parts.append(f"Action: {action}")
        if self.screen_changed is True:
            parts.append("Result: the screen changed.")
        elif self.screen_changed is False:
            parts.append("Result: the screen did NOT change.")
        return " ".join(parts)


# Field labels models use for their description of the screen, their plan and their action,
# across the output conventions of the families we run (standard ``Observation:``, UI-TARS
# ``Thought:``, OpenCUA ``## Thought:`` / ``## Action:`` / ``## Code:``, OS-Atlas ``thoughts:`` /
# ``actions:``). A label is a word and a colon at the start of a line (any case, optionally
# behind ``#`` or ``**``), or a capitalised label later on a line (``... Action: space``).
_FIELDS = {
    "observation": "observation",
    "thought": "thought",
    "thoughts": "thought",
    "reasoning": "reasoning",
    "strategy": "strategy",
    "plan": "strategy",
    "action": "action",
    "actions": "action",
    "code": "code",
}
_LABEL = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:\*\*)?(?P<line>[A-Za-z]+)(?:\*\*)?[ \t]*:(?:\*\*)?"
    r"|(?<=[ \t])(?P<inline>Observation|Thought|Reasoning|Strategy|Plan|Action)[ \t]*:",
    re.M,
)


def response_fields(text: str) -> dict[str, str]:
    """Labelled sections of a response (first occurrence of each), keyed by canonical field."""
    marks: list[tuple[int, int, str]] = []
    for match in _LABEL.finditer(text):
        name = (match["line"] or match["inline"]).lower()
        if name in _FIELDS:
            marks.append((match.start(), match.end(), _FIELDS[name]))
    out: dict[str, str] = {}
    for i, (_, body_start, name) in enumerate(marks):
        body_end = marks[i + 1][0] if i + 1 < len(marks) else len(text)
        if name not in out:
            out[name] = text[body_start:body_end].strip()
    return out


def _one_line(text: str) -> str:
    text = re.sub(r"```[a-zA-Z]*", " ", text)
    text = re.sub(r"</?think>", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def summarize_response(text: str) -> tuple[str, str, str]:
    """(observation, strategy, action) summaries of a raw model response, each on one line.

    Falls back gracefully: without an observation label the thought, the reasoning, or the text
    before a tool call is used; without an action label (tool calls, dict literals) the tool call
    or the last line is.
    """
    text = text or ""
    think = re.search(r"<think>(.*?)</think>", text, re.S)
    body = re.sub(r"<think>.*?</think>", " ", text, flags=re.S)
    fields = response_fields(body)
    observation = fields.get("observation") or fields.get("thought") or fields.get("reasoning")
    action = fields.get("action") or fields.get("code")
    if fields.get("action") and fields.get("code"):
        action = f"{fields['action']} -> {fields['code']}"  # OpenCUA: description, then code
    if not action:
        tool = re.search(r"<tool_call>(.*?)(?:</tool_call>|$)", body, re.S)
        if tool:
            action = tool.group(1)
        else:
            lines = [ln for ln in body.strip().splitlines() if ln.strip()]
            action = lines[-1] if lines else ""
    if not observation:
        before = body.split("<tool_call>")[0] if "<tool_call>" in body else ""
        observation = before or (think.group(1) if think else "")
    return (
        truncate(_one_line(observation), OBSERVATION_CHARS),
        truncate(_one_line(fields.get("strategy", "")), STRATEGY_CHARS),
        truncate(_one_line(action), ACTION_CHARS),
    )


def entry_from_response(
    step: int,
    t_game: float,
    response: str,
    *,
    invalid: bool = False,
    screen_changed: bool | None = None,
    frame: np.ndarray | None = None,
    keep_response: bool = False,
) -> HistoryEntry:
    """Remember a step from the raw model text (any family's format); ``keep_response`` keeps
    the whole text too, for memory turns."""
    observation, strategy, action = summarize_response(response)
    return HistoryEntry(
        step=step,
        t_game=t_game,
        observation=observation,
        action=action,
        invalid=invalid,
        screen_changed=screen_changed,
        strategy=strategy,
        frame=frame,
        response=response if keep_response else "",
    )


class History:
    """The last ``k`` steps of an episode as text (``k = 0`` renders nothing) and its last
    ``rounds`` steps as memory turns (``rounds = 0``: none); nothing is kept when both are 0."""

    def __init__(self, k: int, rounds: int = 0) -> None:
        if k < 0:
            raise ValueError(f"history length must be >= 0, got {k}")
        if rounds < 0:
            raise ValueError(f"memory rounds must be >= 0, got {rounds}")
        self.k = k
        self.rounds = rounds
        self._entries: deque[HistoryEntry] = deque(maxlen=max(k, rounds) or 1)

    @property
    def keeps(self) -> bool:
        return bool(self.k or self.rounds)

    def add(self, entry: HistoryEntry) -> None:
        if self.keeps:
            self._entries.append(entry)

    def mark_last(self, screen_changed: bool) -> None:
        """Record, once the next frame is known, whether the last step changed the screen."""
        if self.keeps and self._entries:
            self._entries[-1] = replace(self._entries[-1], screen_changed=screen_changed)

    def entries(self) -> tuple[HistoryEntry, ...]:
        """The last ``k`` steps, oldest first (what the text block shows)."""
        return tuple(self._entries)[-self.k :] if self.k else ()

    def turns(self) -> tuple[HistoryEntry, ...]:
        """The last ``rounds`` steps, oldest first (what goes back into the chat as turns)."""
        return tuple(self._entries)[-self.rounds :] if self.rounds else ()

    def __len__(self) -> int:
        return len(self.entries())

    def render(self) -> str:
        return render_history(self.entries(), self.k)


def render_history(entries: Sequence[HistoryEntry] | Iterable[HistoryEntry], k: int) -> str:
    """The ``$history`` block: a heading and one line per step, oldest first; empty for k = 0."""
    if k <= 0:
        return ""
    recent = list(entries)[-k:]
    if not recent:
        return "Your previous steps: none yet, this is the first step."
    if len(recent) == 1:
        lines = ["Your previous step:"]
    else:
        lines = [f"Your previous {len(recent)} steps (oldest first):"]
    lines += [f"- {entry.line()}" for entry in recent]
    return "\n".join(lines)
