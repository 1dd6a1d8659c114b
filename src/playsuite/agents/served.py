"""The policy for a served model (the job's vLLM, or a hosted preset's endpoint): the frame and
the prompt in, the model's raw text out.

The request is an OpenAI chat completion: the template's system part as a system message (when
the template has one, as the standard template does, after the paper's shared system prompt),
then one user message carrying the current frame as a PNG data URL (plus the frames of the
remembered steps for presets with ``history_frames``) and the rendered prompt, sampled with the
preset's settings (temperature 0.5, 512 tokens, a seed per episode). The frame is sent at the
game's own resolution, so the image the model sees is the screen and its coordinates need no
rescaling beyond what its parser documents (a preset's ``image_scale`` resizes the frame before
the request is made: playsuite.agents.screenshot). The reply's ``info`` (the trace's) carries
the answer's token usage, its attempts and, when some failed first, why each did.

Two of the condition's agent settings change the request. Memory turns (``agent.memory_rounds``)
go between the system message and the current step as earlier user/assistant pairs: the frame
that step saw with a one-line note, and the model's whole answer. Under the tool interface the
request carries ``tools`` and ``tool_choice`` (with ``parallel_tool_calls`` off: one call per
step is asked for), and the calls the server returns are written after the answer's text in the
``tools`` parser's form (playsuite.actions.parsers.tools), so the trace and the history keep the
answer as one text.
"""

from __future__ import annotations

import time
from typing import Any

from playsuite.actions.parsers.tools import tool_calls_text
from playsuite.agents.policy import PolicyReply, StepRequest
from playsuite.inference.client import ChatResult, InferenceClient
from playsuite.inference.messages import assistant_message, system_message, user_message
from playsuite.registry import Preset

#: Shortest wait for one answer, however little of the episode's wall-clock limit is left.
MIN_REQUEST_S = 1.0


class ServedModelPolicy:
    """Plays by asking a served model; one object per episode (it carries the episode's seed)."""

    def __init__(self, preset: Preset, client: InferenceClient, seed: int = 0) -> None:
        self.name = preset.name
        self.preset = preset
        self.client = client
        self.seed = seed

    def act(self, request: StepRequest) -> PolicyReply:
        images: list[Any] = []
        if self.preset.history_frames:
            images += [e.frame for e in request.history if e.frame is not None]
        images.append(request.frame)
        started = time.perf_counter()
        # The episode's wall limit is the step's budget: its attempts and their waits all come
        # out of it (each attempt also ends by the client's own timeout).
        budget_s = None
        if request.wall_left_s is not None:
            budget_s = max(MIN_REQUEST_S, request.wall_left_s)
        messages = [system_message(request.system)] if request.system else []
        for turn in request.memory:
            note = f"Screenshot of step {turn.step} (game time {turn.t_game:.1f} s)."
            shown = [turn.frame] if turn.frame is not None else []
            messages += [user_message(note, shown), assistant_message(turn.response)]
        messages.append(user_message(request.prompt, images))
        extra = None
        if request.tools:
            extra = {
                "tools": list(request.tools),
                "tool_choice": request.tool_choice,
                "parallel_tool_calls": False,
            }
        result = self.client.chat(
            messages,
            seed=self.seed + request.step,
            timeout_s=budget_s,
            extra_body=extra,
        )
        info: dict[str, Any] = {
            "usage": result.usage,
            "finish_reason": result.finish_reason,
            "attempts": result.attempts,
            "images": len(images) + sum(t.frame is not None for t in request.memory),
            "memory_turns": len(request.memory),
        }
        if result.retries:  # why the attempts before the answer failed (HTTP 429: ...)
            info["retries"] = list(result.retries)
        return PolicyReply(
            text=answer_text(result) if request.tools else result.text,
            latency_s=time.perf_counter() - started,
            image_size=request.screen,
            info=info,
        )


def answer_text(result: ChatResult) -> str:
    """The answer's text followed by its tool calls (the tools parser's form)."""
    message = result.response["choices"][0].get("message") or {}
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {} if isinstance(call, dict) else {}
        calls.append((str(function.get("name", "")), function.get("arguments", "")))
    return tool_calls_text(calls, result.text)
