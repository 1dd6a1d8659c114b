"""The agent: a policy together with everything that turns a frame into actions.

A policy only answers raw text. Playing also needs the prompt (template and game text), the
memory of the last k steps and the preset's parser; before this module the episode loop kept
those itself. :class:`Agent` owns them, so the loop only moves frames and actions between the
game and the agent, and the same agent can play any Gymnasium-style environment.

The condition's ``agent.*`` settings belong to the agent too: ``agent.interface=tools`` swaps
the preset's text format for the typed tools (sent with each request, read back by the ``tools``
parser) and ``agent.memory_rounds`` sends the model's own last turns again (GameWorld's memory).

One agent plays one episode at a time; :meth:`Agent.reset` starts the next (policies may keep
per-episode state, so the harness still makes one policy per episode).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from playsuite.actions import Action, Invalid, kept_down
from playsuite.actions.parsers import parse_response
from playsuite.actions.parsers.common import writable_text
from playsuite.actions.parsers.tools import tool_specs
from playsuite.agents.history import History, entry_from_response
from playsuite.agents.policy import Policy, StepRequest, StopEpisode
from playsuite.agents.prompts import EpisodePrompt
from playsuite.agents.screenshot import resized, scaled_size
from playsuite.config import Condition, ConfigError
from playsuite.inference.client import InferenceRequestError
from playsuite.registry import Preset


def check_agent_settings(preset: Preset, condition: Condition) -> None:
    """A served preset can play ``condition``'s agent settings, else a :class:`ConfigError`
    (the server would refuse every request of every such episode): the tool interface needs the
    preset's ``serve.tool_call_parser``, and with memory rounds the images of a step (the frame,
    the memory turns' frames, the history's frames for ``history_frames``) must fit the server's
    ``limit_mm_per_prompt``."""
    if not preset.needs_server:
        return
    serve = preset.serve or {}
    limit = (serve.get("limit_mm_per_prompt") or {}).get("image")
    rounds = int(condition.setting("agent.memory_rounds"))
    frames = condition.get("preset.history_frames")
    frames = preset.history_frames if frames is None else frames
    images = 1 + rounds + (condition.history_k if frames else 0)
    if rounds and limit is not None and images > int(limit):
        raise ConfigError(
            f"condition {condition.name!r} sends preset {preset.name!r} up to {images} images a "
            f"step, but its server takes {limit} (serve.limit_mm_per_prompt): fewer memory "
            "rounds, or a higher limit"
        )
    if condition.setting("agent.interface") != "tools":
        return
    if not serve.get("tool_call_parser"):
        raise ConfigError(
            f"condition {condition.name!r} plays through tools, but preset {preset.name!r} has "
            "no serve.tool_call_parser in the model registry (vLLM needs one for tool calls; "
            "hermes for the Qwen families): add it, or leave the preset out"
        )


class PolicyFailed(RuntimeError):
    """The policy could not answer (e.g. the model server is gone): nothing the game did.

    A refusal of the request itself (:class:`InferenceRequestError`) is passed on unchanged,
    since the caller treats it differently (the same request would fail again); the original
    error of any other failure is this exception's ``__cause__``.
    """


@dataclass(frozen=True)
class AgentStep:
    """What the agent decided at one step, with what the trace records about it.

    ``actions`` are canonical (an unparsable answer becomes :class:`Invalid` actions, which the
    game executes as no-ops); ``response`` is the policy's raw text made valid Unicode, the form
    the trace, the history and later prompts carry. ``image_size`` is the image the policy saw
    (its coordinates' space); ``info`` holds the policy's extras (token counts...).
    """

    step: int
    t_game: float
    screen: tuple[int, int]
    actions: list[Action]
    response: str
    invalid: bool
    latency_s: float
    image_size: tuple[int, int]
    info: dict[str, Any] = field(default_factory=dict)


class Agent:
    """``Agent(policy, preset, condition)``: plays with the preset's template, history and parser.

    ``reset(game)`` binds it to a game (a catalog row as a dict) and forgets the past;
    ``act(frame, t_game)`` answers one step; ``observe_result(changed)`` tells it whether its
    last step changed the screen, which the history shows the model (loop prevention).
    """

    def __init__(self, policy: Policy, preset: Preset, condition: Condition) -> None:
        self.policy = policy
        self.preset = preset
        self.condition = condition
        self.interface = str(condition.setting("agent.interface"))
        self.tool_choice = str(condition.setting("agent.tool_choice"))
        self.memory_rounds = int(condition.setting("agent.memory_rounds"))
        self.history = self._new_history()
        self.steps = 0
        self._game: dict[str, Any] = {}
        self._prompt: EpisodePrompt | None = None

    @property
    def name(self) -> str:
        return self.policy.name

    @property
    def tools(self) -> bool:
        """Whether this agent plays through the generalist tool interface."""
        return self.interface == "tools"

    @property
    def parser(self) -> str:
        """The parser of the answers: the preset's own, or ``tools`` under the tool interface."""
        return "tools" if self.tools else self.preset.parser

    def _new_history(self) -> History:
        return History(self.condition.history_k, self.memory_rounds)

    @property
    def template_name(self) -> str:
        """The prompt template this episode uses (``meta.json`` records it)."""
        return self.prompt.template.name

    @property
    def prompt(self) -> EpisodePrompt:
        if self._prompt is None:
            raise RuntimeError("call reset() first")
        return self._prompt

    def reset(self, game: Mapping[str, Any], *, readme_text: str | None = None) -> None:
        """Start an episode of ``game``: render its text into the template, empty the history."""
        self._game = dict(game)
        self._prompt = EpisodePrompt.for_run(
            self.preset, self.condition, self._game, readme_text=readme_text
        )
        self.history = self._new_history()
        self.steps = 0

    def act(self, frame: np.ndarray, t_game: float, wall_left_s: float | None = None) -> AgentStep:
        """Ask the policy about ``frame`` (at game time ``t_game``) and parse its answer.

        Raises :class:`InferenceRequestError` when the server refused the request and
        :class:`PolicyFailed` when the policy could not answer at all; a nonsensical answer is
        not an error but invalid actions.
        """
        prompt = self.prompt
        step = self.steps
        # The model sees the frame: its size is the coordinate space of the answer, even for a
        # game that resizes its window or a screen that clips it. A preset's image_scale sends a
        # resized frame: the prompt then names the image's size and the parser maps back.
        screen = (frame.shape[1], frame.shape[0])
        seen = scaled_size(screen, self.preset.image_scale)
        shown = resized(frame, seen)
        request = StepRequest(
            frame=shown,
            game=self._game,
            step=step,
            t_game=t_game,
            screen=seen,
            prompt=prompt.render(seen, history=self.history),
            history=self.history.entries(),
            step_seconds=self.condition.step_seconds,
            wall_left_s=wall_left_s,
            system=prompt.render_system(seen),
            memory=self.history.turns(),
            tools=tuple(tool_specs(seen)) if self.tools else (),
            tool_choice=self.tool_choice,
        )
        try:
            reply = self.policy.act(request)
        except (InferenceRequestError, StopEpisode):
            raise
        except Exception as exc:
            raise PolicyFailed(f"policy {self.policy.name!r} failed: {exc}") from exc
        actions = parse_response(
            self.parser,
            reply.text,
            screen=screen,
            image=reply.image_size,
            options=None if self.tools else self.preset.parser_options,
        )
        if reply.keep_down:
            actions = kept_down(actions, reply.keep_down)
        invalid = any(isinstance(a, Invalid) for a in actions)
        response = writable_text(reply.text)
        self.history.add(
            entry_from_response(
                step,
                t_game,
                response,
                invalid=invalid,
                frame=shown if self.preset.history_frames or self.memory_rounds else None,
                keep_response=bool(self.memory_rounds),
            )
        )
        self.steps += 1
        return AgentStep(
            step=step,
            t_game=t_game,
            screen=screen,
            actions=actions,
            response=response,
            invalid=invalid,
            latency_s=reply.latency_s,
            image_size=reply.image_size,
            info=reply.info,
        )

    def observe_result(self, screen_changed: bool) -> None:
        """Whether the last step changed the screen (shown in later prompts' history)."""
        self.history.mark_last(screen_changed)
