"""Baseline players: ``random`` and ``explorer``. No model, no GPU, deterministic given a seed.

They set the floor a model must beat and let the whole workflow run on a laptop. Both answer in
the standard response format (``Observation: / Reasoning: / Action:``) and in the standard action
grammar, and the harness parses them with the standard parser like any model's text, so a run of
a baseline exercises the full path from prompt to canonical actions. Under the generalist tool
interface (a request that carries tools) they answer the same action as tool calls instead
(playsuite.actions.parsers.tools), so that interface's path is exercised the same way.

- ``random`` samples the action grammar uniformly by kind (key, chord, hold, click, right click,
  double click, scroll, pointer move, relative move, wait) with uniform arguments.
- ``explorer`` plays like a methodical newcomer: it clicks text on menus (buttons), then tries the
  game's documented controls, then the common fallback controls; it keeps an action while the
  screen keeps changing (up to a few times) and moves on as soon as the screen stops changing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from playsuite.actions.parsers import parse_response
from playsuite.actions.parsers.tools import tool_call_for, tool_calls_text
from playsuite.agents.gameinfo import ARROWS, WASD, documented_controls
from playsuite.agents.policy import PolicyReply, StepRequest
from playsuite.agents.vision import (
    CHANGE_THRESHOLD,
    Region,
    text_regions,
    thumbnail,
    thumbnail_change,
)
from playsuite.config import ConfigError

#: Keys the prompt tells models to fall back on, in its order.
FALLBACK_KEYS: tuple[str, ...] = (
    "a", "d", "w", "s", "left", "right", "up", "down", "space", "enter", "escape",
    "z", "x", "c", "q", "e", "r", "f", "1", "2", "3", "4", "5",
)  # fmt: skip
MOVEMENT_KEYS = frozenset(ARROWS + WASD)


def _reply(observation: str, reasoning: str, action: str, started: float, request: StepRequest):
    size = request.screen
    if request.tools:  # the same action as tool calls, after the same observation and reasoning
        actions = parse_response("standard", f"Action: {action}", screen=size)
        calls = [tool_call_for(a) for a in actions]
        text = tool_calls_text(calls, f"Observation: {observation}\nReasoning: {reasoning}")
    else:
        text = f"Observation: {observation}\nReasoning: {reasoning}\nAction: {action}"
    return PolicyReply(text=text, latency_s=time.perf_counter() - started, image_size=size)


def _seconds(value: float) -> str:
    return f"{value:.1f}"


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else str(value)


class RandomPolicy:
    """Uniform over action kinds, then uniform arguments. Step ``n`` with seed ``s`` always gives
    the same action (its generator is seeded with ``(s, n)``), whatever happened before.

    Chords pair two fallback keys or ``shift`` with one: ``ctrl`` and ``alt`` are left out because
    their chords close windows and tabs rather than play the game.
    """

    KINDS: tuple[str, ...] = (
        "key", "chord", "hold", "click", "rightclick", "doubleclick", "scroll", "move",
        "move_relative", "wait",
    )  # fmt: skip

    def __init__(self, seed: int = 0, name: str = "random") -> None:
        self.seed = int(seed)
        self.name = name

    def sample(self, step: int, screen: tuple[int, int]) -> str:
        """The action text for ``step`` on a ``screen`` = (width, height)."""
        rng = np.random.default_rng([self.seed, step])
        width, height = screen
        keys = FALLBACK_KEYS
        kind = self.KINDS[rng.integers(len(self.KINDS))]

        def point() -> tuple[int, int]:
            return int(rng.integers(width)), int(rng.integers(height))

        if kind == "key":
            return keys[rng.integers(len(keys))]
        if kind == "chord":
            first = "shift" if rng.random() < 0.5 else keys[rng.integers(len(keys))]
            second = keys[rng.integers(len(keys))]
            while second == first:
                second = keys[rng.integers(len(keys))]
            return f"{first}+{second}"
        if kind == "hold":
            count = 1 + int(rng.integers(2))
            held = [str(k) for k in rng.choice(keys, size=count, replace=False)]
            return f"hold:{'+'.join(held)}:{_seconds(float(rng.uniform(0.2, 2.0)))}"
        if kind == "click":
            x, y = point()
            return f"CLICK: {x}, {y}"
        if kind == "rightclick":
            x, y = point()
            return f"rightclick:{x},{y}"
        if kind == "doubleclick":
            x, y = point()
            return f"click:{x},{y} click:{x},{y}"
        if kind == "scroll":
            direction = "up" if rng.random() < 0.5 else "down"
            notches = 1 + int(rng.integers(5))
            return f"scroll:{direction}" if notches == 1 else f"scroll:{direction}:{notches}"
        if kind == "move":
            x, y = point()
            return f"move:{x},{y}"
        if kind == "move_relative":
            dx, dy = (int(v) for v in rng.integers(-200, 201, size=2))
            text = f"move:{_signed(dx)},{_signed(dy)}"
            if rng.random() < 0.5:
                text += f":{_seconds(float(rng.uniform(0.2, 1.0)))}"
            return text
        return "wait"

    def act(self, request: StepRequest) -> PolicyReply:
        started = time.perf_counter()
        action = self.sample(request.step, request.screen)
        return _reply(
            "Not inspected: the random baseline does not look at the screen.",
            "Uniformly sampled action from the action grammar.",
            action,
            started,
            request,
        )


@dataclass
class _Plan:
    """One entry of the explorer's control cycle."""

    action: Callable[[StepRequest, np.random.Generator], str]
    label: str


def _key_plan(key: str) -> _Plan:
    if key in MOVEMENT_KEYS:
        return _Plan(lambda _r, _g, k=key: f"hold:{k}:1.0", f"hold {key}")
    return _Plan(lambda _r, _g, k=key: k, f"press {key}")


def _click_plan(button: str = "left") -> _Plan:
    def action(request: StepRequest, rng: np.random.Generator) -> str:
        width, height = request.screen
        # First at the centre, later anywhere: the explorer does not know where the action is.
        if rng.random() < 0.5:
            x, y = width // 2, height // 2
        else:
            x, y = int(rng.integers(width)), int(rng.integers(height))
        return f"CLICK: {x}, {y}" if button == "left" else f"rightclick:{x},{y}"

    return _Plan(action, "left click" if button == "left" else "right click")


class ExplorerPolicy:
    """A scripted, non-learning player (see the module docstring).

    Per-episode state: the previous frame, the current action and how often it ran, the position
    in the control cycle, and where it clicked recently (so it tries each button once, not
    forever). ``escape`` is not among its fallback keys: for a player that cannot read the
    screen it mostly pauses or quits the game; it is used when a game documents it.
    """

    #: Keep an action that changes the screen at most this many steps in a row.
    MAX_REPEATS = 3
    #: Do not click the same spot again within this many steps.
    CLICK_MEMORY_STEPS = 30
    #: A remembered click counts for a text box up to this many pixels outside it.
    CLICK_MARGIN = 12
    #: A change of more than this share of the screen is a new scene (menu -> game).
    SCENE_CHANGE = 0.3
    #: At most one probe (a ``wait`` that measures the game's own motion) per this many steps.
    PROBE_GAP = 10

    def __init__(self, seed: int = 0, name: str = "explorer") -> None:
        self.seed = int(seed)
        self.name = name
        self._prev: np.ndarray | None = None
        self._last: str | None = None
        self._last_kind = ""
        self._repeats = 0
        self._cycle: list[_Plan] | None = None
        self._cycle_pos = -1
        self._clicked: list[tuple[int, int, int]] = []  # (x, y, step)
        self._ambient = 0.0
        self._probe_due = True
        self._last_probe = -self.PROBE_GAP

    def _observe(self, frame: np.ndarray) -> tuple[bool, bool]:
        """(first screen?, did the last action change the screen?), updating the motion model.

        Many games move on their own (a starfield, a scrolling backdrop, an idle animation).
        The explorer measures that ambient motion with a probe, a step of ``wait``, at the start
        and after every change of scene, and only change well above it counts as the action
        having done something; so a menu over moving stars still reads as "nothing happened".
        """
        thumb = thumbnail(frame)
        prev, self._prev = self._prev, thumb
        if prev is None:
            return True, False
        amount = thumbnail_change(prev, thumb)
        if self._last_kind == "probe":
            self._ambient = amount
        if amount > self.SCENE_CHANGE:
            self._probe_due = True
        return False, amount > CHANGE_THRESHOLD + 1.25 * self._ambient

    def _build_cycle(self, request: StepRequest) -> list[_Plan]:
        documented = documented_controls(str(request.game.get("controls") or ""))
        plans = [_key_plan(k) for k in documented.keys]
        if documented.mouse:
            plans.append(_click_plan("left"))
        if documented.right_mouse:
            plans.append(_click_plan("right"))
        seen = set(documented.keys)
        for key in FALLBACK_KEYS:
            if key == "escape" or key in seen:
                continue
            plans.append(_key_plan(key))
            if key == "enter" and not documented.mouse:
                plans.append(_click_plan("left"))  # the fallback order: ..., enter, click, z...
        return plans

    def _untried(self, regions: list[Region], step: int) -> list[Region]:
        """Regions with no recent click inside them (boxes shift by a few pixels between
        frames, so a remembered click is matched against the box, margin included)."""
        margin = self.CLICK_MARGIN
        recent = [(x, y) for x, y, at in self._clicked if step - at <= self.CLICK_MEMORY_STEPS]
        return [
            r
            for r in regions
            if not any(
                r.x0 - margin <= x < r.x1 + margin and r.y0 - margin <= y < r.y1 + margin
                for x, y in recent
            )
        ]

    def act(self, request: StepRequest) -> PolicyReply:
        started = time.perf_counter()
        frame = request.frame
        rng = np.random.default_rng([self.seed, request.step])
        if self._cycle is None:
            self._cycle = self._build_cycle(request)
        first, changed = self._observe(frame)
        after_menu_click = self._last_kind == "text" and changed
        # Text is looked for only when a click on it is an option (it costs most of a step).
        looking = first or not changed or after_menu_click
        regions = text_regions(frame) if looking else []
        targets = self._untried(regions, request.step)

        if targets:
            target = targets[0]
            cx, cy = target.center
            self._clicked.append((cx, cy, request.step))
            action, kind = f"CLICK: {cx}, {cy}", "text"
            reasoning = (
                f"Text at ({cx}, {cy}) looks like a button or menu entry I have not tried; "
                "clicking it may start or advance the game."
            )
        elif self._probe_due and request.step - self._last_probe >= self.PROBE_GAP:
            self._probe_due, self._last_probe = False, request.step
            action, kind = "wait", "probe"
            reasoning = "I watch the screen for one step to see how much it moves on its own."
        elif (
            self._last_kind == "control"
            and changed
            and self._repeats < self.MAX_REPEATS
            and self._last is not None
        ):
            action, kind = self._last, "control"
            label = self._cycle[self._cycle_pos].label
            reasoning = f"The last action ({label}) changed the screen, so I keep doing it."
        else:
            self._cycle_pos = (self._cycle_pos + 1) % len(self._cycle)
            plan = self._cycle[self._cycle_pos]
            action, kind = plan.action(request, rng), "control"
            why = "nothing changed" if not changed and not first else "trying the next control"
            reasoning = f"Next in my list of controls ({why}): {plan.label}."

        self._repeats = self._repeats + 1 if action == self._last else 1
        self._last, self._last_kind = action, kind
        if first:
            state = "This is the first screen."
        else:
            state = "The screen changed." if changed else "The screen did not change."
        if regions:
            state += f" {len(regions)} text-like area(s) visible."
        return _reply(state, reasoning, action, started, request)


BASELINES: dict[str, type[RandomPolicy] | type[ExplorerPolicy]] = {
    "random": RandomPolicy,
    "explorer": ExplorerPolicy,
}


def make_baseline(name: str, seed: int = 0) -> RandomPolicy | ExplorerPolicy:
    """A fresh baseline policy for one episode (``name`` is a baseline preset name)."""
    try:
        cls = BASELINES[name]
    except KeyError:
        raise ConfigError(f"unknown baseline {name!r}; known: {', '.join(BASELINES)}") from None
    return cls(seed=seed, name=name)
