"""A person as a policy: the actions come from a page, the rest is the models' path.

A human run is only comparable with a model's when everything but the player is the same: the
same runtime and sandbox, the same step of frozen game time, the same recorder, and the same
action grammar read by the same parser. :class:`HumanPolicy` is therefore an ordinary
:class:`~playsuite.agents.policy.Policy`: at each step it hands the request (the frame a model
would see, the rendered prompt) to an :class:`ActionSource` (the play page of playsuite.human),
waits for the person's canonical actions, and answers them as standard-grammar text, which the
:class:`~playsuite.agents.agent.Agent` parses with the standard parser like any model's answer.
Keys the person still holds at the end of a live slice (holds with ``release=False``, which the
grammar cannot say) are named beside the text (``PolicyReply.keep_down``).

The person can end the episode (:class:`~playsuite.agents.policy.StopEpisode`); what they did
beyond the actions (the raw key and mouse events of the live mode, with their stamps) goes into
the trace through the reply's ``info``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from playsuite.actions import Action, Hold, Wait
from playsuite.actions.grammar import format_standard
from playsuite.agents.policy import PolicyReply, StepRequest
from playsuite.registry import Preset

#: The name, family and preset a person's episodes are recorded under.
HUMAN = "human"


@dataclass(frozen=True)
class HumanAnswer:
    """What the person did at one step: canonical ``actions`` (none: a wait) and ``info`` for
    the trace (e.g. the live mode's stamped input events)."""

    actions: Sequence[Action]
    info: dict[str, Any] = field(default_factory=dict)


class ActionSource(Protocol):
    """Where a person's actions come from (the play page). ``answer`` blocks until the person
    has answered ``request``; it may raise :class:`~playsuite.agents.policy.StopEpisode`."""

    def answer(self, request: StepRequest) -> HumanAnswer: ...


class HumanPolicy:
    """``HumanPolicy(source)``: a person's answers, written in the standard grammar.

    ``latency_s`` is the person's thinking time (the wait for the page), as a model's is its
    inference time; the image size is the frame's, so coordinates are screen pixels.
    """

    name = HUMAN

    def __init__(self, source: ActionSource) -> None:
        self.source = source

    def act(self, request: StepRequest) -> PolicyReply:
        started = time.perf_counter()
        answer = self.source.answer(request)
        actions = list(answer.actions) or [Wait()]
        left_down = (a.keys for a in actions if isinstance(a, Hold) and not a.release)
        return PolicyReply(
            text=format_standard(actions),
            latency_s=time.perf_counter() - started,
            image_size=request.screen,
            info=dict(answer.info),
            keep_down=frozenset(k for keys in left_down for k in keys),
        )


def human_preset(template: str = "standard") -> Preset:
    """The preset a person plays as: the standard parser and template (the page shows the
    person the prompt a model gets), full-size frames, no server, no history frames."""
    return Preset(
        name=HUMAN,
        kind=HUMAN,
        family=HUMAN,
        parser="standard",
        template=template,
        hf_id=None,
        params_b=None,
        sampling={},
        serve={},
        resources={},
        parser_options={},
        history_frames=False,
    )
