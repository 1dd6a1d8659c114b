"""Baselines: determinism, coverage of the grammar, and the explorer's scripted behaviour."""

from __future__ import annotations

import itertools
import re
from typing import ClassVar

import numpy as np
import pytest

from playsuite.agents.baselines import (
    BASELINES,
    ExplorerPolicy,
    RandomPolicy,
    make_baseline,
)
from playsuite.agents.policy import Policy, PolicyReply, StepRequest
from playsuite.config import ConfigError
from tests.agents.frames import menu_frame

SCREEN = (800, 600)


def _request(frame, step, game=None, screen=SCREEN):
    return StepRequest(frame, game or {"id": "g"}, step, 3.0 * step, screen, "prompt")


def _action(reply: PolicyReply) -> str:
    match = re.search(r"^Action: (.*)$", reply.text, re.M)
    assert match, reply.text
    return match.group(1)


def test_replies_use_the_standard_response_format():
    frame = np.zeros((600, 800, 3), dtype=np.uint8)
    for name in BASELINES:
        reply = make_baseline(name, seed=1).act(_request(frame, 0))
        assert re.fullmatch(r"Observation: .+\nReasoning: .+\nAction: .+", reply.text)
        assert reply.image_size == SCREEN and reply.latency_s >= 0
        assert isinstance(make_baseline(name), Policy)


def test_unknown_baseline():
    with pytest.raises(ConfigError, match="known: random, explorer"):
        make_baseline("genius")


def test_random_is_deterministic_per_seed_and_step():
    frame = np.zeros((600, 800, 3), dtype=np.uint8)
    first = [_action(RandomPolicy(seed=5).act(_request(frame, s))) for s in range(50)]
    again = RandomPolicy(seed=5)
    assert [_action(again.act(_request(frame, s))) for s in range(50)] == first
    assert _action(RandomPolicy(seed=5).act(_request(frame, 17))) == first[17]  # no hidden state
    other = [_action(RandomPolicy(seed=6).act(_request(frame, s))) for s in range(50)]
    assert other != first


def test_random_samples_every_kind_and_stays_on_screen():
    policy = RandomPolicy(seed=0)
    texts = [policy.sample(step, (320, 200)) for step in range(600)]
    patterns = {
        "key": r"^[a-z0-9]+$",
        "chord": r"^[a-z0-9]+\+[a-z0-9]+$",
        "hold": r"^hold:[a-z0-9+]+:\d\.\d$",
        "click": r"^CLICK: \d+, \d+$",
        "rightclick": r"^rightclick:\d+,\d+$",
        "doubleclick": r"^click:(\d+,\d+) click:\1$",
        "scroll": r"^scroll:(up|down)(:[2-5])?$",
        "move": r"^move:\d+,\d+$",
        "move_relative": r"^move:[+-]\d+,[+-]\d+(:\d\.\d)?$",
        "wait": r"^wait$",
    }
    for kind, pattern in patterns.items():
        assert any(re.match(pattern, t) for t in texts), kind
    for t in texts:
        if t.startswith(("CLICK", "click", "rightclick", "move:")) and "+" not in t:
            x, y = (int(v) for v in re.findall(r"\d+", t)[:2])
            if not re.match(r"^move:[+-]", t):
                assert 0 <= x < 320 and 0 <= y < 200, t
    assert "wait" in texts and "escape" in texts  # the fallback keys include escape


def test_explorer_clicks_the_menu_button_first(game_row):
    frame, (x0, y0, x1, y1) = menu_frame()
    reply = ExplorerPolicy(seed=0).act(_request(frame, 0, game_row))
    x, y = (int(v) for v in re.fullmatch(r"CLICK: (\d+), (\d+)", _action(reply)).groups())
    assert x0 <= x < x1 and y0 <= y < y1
    assert "Text at" in reply.text


def test_explorer_cycles_documented_controls_then_fallbacks_on_a_still_screen(game_row):
    policy = ExplorerPolicy(seed=0)
    still = np.full((600, 800, 3), 40, dtype=np.uint8)  # nothing to click, nothing changes
    actions = [_action(policy.act(_request(still, s, game_row))) for s in range(13)]
    assert actions[0] == "wait"  # the probe: how much does the screen move on its own?
    # game_row documents arrow keys, Z, X and the mouse: those first, in that order
    assert actions[1:7] == ["hold:left:1.0", "hold:right:1.0", "hold:up:1.0", "hold:down:1.0",
                            "z", "x"]  # fmt: skip
    assert re.fullmatch(r"CLICK: \d+, \d+", actions[7])
    assert actions[8:13] == ["hold:a:1.0", "hold:d:1.0", "hold:w:1.0", "hold:s:1.0", "space"]
    assert len(set(actions)) == len(actions)  # never the same action twice on a still screen


def test_explorer_without_documented_controls_uses_fallbacks_without_escape():
    policy = ExplorerPolicy(seed=0)
    still = np.full((600, 800, 3), 40, dtype=np.uint8)
    actions = [_action(policy.act(_request(still, s))) for s in range(40)]
    assert actions[:5] == ["wait", "hold:a:1.0", "hold:d:1.0", "hold:w:1.0", "hold:s:1.0"]
    assert "escape" not in actions
    i = actions.index("enter")
    assert re.fullmatch(r"CLICK: \d+, \d+", actions[i + 1]) and actions[i + 2] == "z"


class SlidingBlock:
    """A minimal responsive game: a block that moves 60 px per movement hold, nothing else.

    ``stars`` adds a starfield that moves on its own every step (ambient motion).
    """

    STEP: ClassVar[dict[str, tuple[int, int]]] = {
        "a": (-60, 0), "d": (60, 0), "w": (0, -60), "s": (0, 60)
    }  # fmt: skip

    def __init__(self, stars: bool = False) -> None:
        self.x, self.y, self.t = 380, 280, 0
        self.stars = stars

    def frame(self) -> np.ndarray:
        frame = np.full((600, 800, 3), 20, dtype=np.uint8)
        if self.stars:
            rng = np.random.default_rng(self.t)  # a new star pattern every step
            for y, x in zip(rng.integers(0, 597, 60), rng.integers(0, 797, 60), strict=True):
                frame[y : y + 3, x : x + 3] = 255
        frame[self.y : self.y + 40, self.x : self.x + 40] = (200, 60, 60)
        return frame

    def apply(self, action: str) -> None:
        self.t += 1
        match = re.fullmatch(r"hold:([adws]):[\d.]+", action)
        if match:
            dx, dy = self.STEP[match.group(1)]
            self.x = (self.x + dx) % 760
            self.y = (self.y + dy) % 560


def _play(game: SlidingBlock, steps: int) -> list[str]:
    policy = ExplorerPolicy(seed=0)
    actions = []
    for step in range(steps):
        action = _action(policy.act(_request(game.frame(), step)))
        game.apply(action)
        actions.append(action)
    return actions


def test_explorer_keeps_an_action_while_it_changes_the_screen_then_moves_on():
    actions = _play(SlidingBlock(), 9)
    run = ExplorerPolicy.MAX_REPEATS
    assert actions[0] == "wait"
    assert actions[1 : 1 + run] == ["hold:a:1.0"] * run  # it moves the block: keep it
    assert actions[1 + run : 1 + 2 * run] == ["hold:d:1.0"] * run  # at most MAX_REPEATS
    assert actions[1 + 2 * run] == "hold:w:1.0"


def test_explorer_tells_its_own_effect_from_a_moving_background():
    actions = _play(SlidingBlock(stars=True), 24)
    run = ExplorerPolicy.MAX_REPEATS
    # the stars move every step, yet holds that move the block are still kept and taps that do
    # nothing are not repeated
    assert actions[1 : 1 + run] == ["hold:a:1.0"] * run
    rest = actions[1 + 4 * run :]  # after a, d, w, s: keys that move nothing
    assert len(rest) >= 10 and "hold:left:1.0" in rest
    assert all(a != b for a, b in itertools.pairwise(rest)), rest


def test_explorer_is_deterministic(game_row):
    frame, _ = menu_frame()
    still = np.full((600, 800, 3), 40, dtype=np.uint8)
    frames = [frame, frame, still, still, frame, still] * 3

    def run(seed):
        policy = ExplorerPolicy(seed=seed)
        return [policy.act(_request(f, s, game_row)).text for s, f in enumerate(frames)]

    assert run(4) == run(4)


def test_step_request_validates_the_frame():
    with pytest.raises(ValueError, match="H×W×3"):
        _request(np.zeros((600, 800), dtype=np.uint8), 0)
    with pytest.raises(ValueError, match="uint8"):
        _request(np.zeros((600, 800, 3), dtype=np.float32), 0)
    with pytest.raises(ValueError, match="screen says"):
        _request(np.zeros((600, 800, 3), dtype=np.uint8), 0, screen=(640, 480))
