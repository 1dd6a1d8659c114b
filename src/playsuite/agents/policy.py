"""The policy interface: everything that chooses actions answers one call, ``act``.

A policy sees what a model would see (the frame, the rendered prompt, the history) and answers
with *raw text* in its family's output format, never with parsed actions. The harness parses that
text with the preset's parser, exactly as it does for a served model, so baselines exercise the
same path (parser, invalid-output counting, trace) as the models they are compared with.

Policies may keep per-episode state (the explorer remembers the previous frame): the harness
creates one policy object per episode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from playsuite.agents.history import HistoryEntry


@dataclass(frozen=True)
class StepRequest:
    """What a policy gets at one step.

    ``frame`` is the game screen, H×W×3 uint8, at ``screen`` = (width, height). ``game`` is the
    catalog row (a dict with the fields of DESIGN.md "Catalog entry"). ``prompt`` is the rendered
    prompt text for this step (the user message), ``history`` the remembered past steps, oldest
    first. ``wall_left_s`` is what remains of the episode's wall-clock limit. ``system`` is the
    template's system part, the same every step (``""`` for templates without one).
    """

    frame: np.ndarray
    game: Mapping[str, Any]
    step: int
    t_game: float
    screen: tuple[int, int]
    prompt: str
    history: tuple[HistoryEntry, ...] = ()
    step_seconds: float = 3.0
    #: Wall-clock seconds the episode has left (None: no limit); a served policy waits no longer.
    wall_left_s: float | None = None
    #: The system message a served model gets before the prompt; empty: none is sent.
    system: str = ""
    #: Memory turns (condition ``agent.memory_rounds``): past steps, oldest first, each with
    #: its frame and whole answer, which a served model gets as earlier turns of the chat.
    memory: tuple[HistoryEntry, ...] = ()
    #: The generalist interface's tools (OpenAI ``tools`` entries; empty: answer in text) and
    #: how the model must use them (``required`` or ``auto``).
    tools: tuple[dict[str, Any], ...] = ()
    tool_choice: str = "required"

    def __post_init__(self) -> None:
        frame = self.frame
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
            shape = getattr(frame, "shape", None)
            raise ValueError(f"frame must be an H×W×3 array, got shape {shape}")
        if frame.dtype != np.uint8:
            raise ValueError(f"frame must be uint8, got {frame.dtype}")
        width, height = self.screen
        if (frame.shape[1], frame.shape[0]) != (width, height):
            raise ValueError(
                f"frame is {frame.shape[1]}x{frame.shape[0]} but screen says {width}x{height}"
            )


class StopEpisode(Exception):
    """Raised by a policy that ends the episode itself: a person who presses "End" on the play
    page (playsuite.agents.human). The episode then ends ``ok`` with ``stop_reason`` ``agent``,
    everything played so far kept; a model never raises it."""


@dataclass(frozen=True)
class PolicyReply:
    """A policy's answer: raw text, time taken, and the size of the image it looked at.

    ``image_size`` (width, height) is what coordinates in ``text`` refer to; parsers scale from it
    to the game screen. ``info`` holds optional extras for the trace (token counts...).
    ``keep_down`` names keys the player still holds when the step ends (a person in the live
    mode): the grammar has no word for a key left down, so they travel beside the text, and the
    agent leaves the parsed holds of these keys down (``Hold.release``). Models leave it empty.
    """

    text: str
    latency_s: float
    image_size: tuple[int, int]
    info: dict[str, Any] = field(default_factory=dict)
    keep_down: frozenset[str] = frozenset()


@runtime_checkable
class Policy(Protocol):
    """Anything that plays: a served model or a baseline.

    ``name`` is the preset name it runs as. ``act`` must not raise for a bad game state; it may
    raise for a broken policy (a model server that is down), which the harness records.
    """

    name: str

    def act(self, request: StepRequest) -> PolicyReply: ...
