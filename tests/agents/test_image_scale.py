"""A preset's ``image_scale`` (a condition's ``preset.image_scale``): the model is sent a resized
screenshot, its prompt names the resized size, and its coordinates are mapped back to the
screen, so a click on what it saw lands on the same spot of the game."""

from __future__ import annotations

import dataclasses

import numpy as np

from playsuite.actions import Click
from playsuite.agents.agent import Agent
from playsuite.agents.screenshot import resized, scaled_size
from playsuite.agents.served import ServedModelPolicy
from playsuite.config import Condition
from playsuite.harness.job import apply_condition
from playsuite.inference.messages import image_data_url
from playsuite.registry import load_registry
from playsuite.testing.fakes import RecordingChatClient

SCREEN = (160, 120)


#: What the recording client answers every request.
CLICK_ANSWER = "Observation: a button.\nReasoning: press it.\nAction: CLICK: 40, 30"


def test_scaled_sizes() -> None:
    assert scaled_size((800, 600), 1) == (800, 600)
    assert scaled_size((800, 600), 0.5) == (400, 300)
    assert scaled_size((3, 3), 0.1) == (1, 1)


def test_frames_are_resized_only_when_needed() -> None:
    frame = np.zeros((120, 160, 3), dtype=np.uint8)
    assert resized(frame, (160, 120)) is frame
    assert resized(frame, (80, 60)).shape == (60, 80, 3)


def test_a_half_size_screenshot_is_sent_and_its_click_lands_on_the_screen(game_row) -> None:
    preset = load_registry().preset("internvl3.5-8b")
    assert preset.image_scale == 1  # the schema's default
    condition = Condition.parse("k0-hz0.33-base+preset.image_scale=0.5")
    preset, _ = apply_condition(preset, condition, None)
    assert preset.image_scale == 0.5
    client = RecordingChatClient(CLICK_ANSWER)
    agent = Agent(ServedModelPolicy(preset, client), preset, condition)
    agent.reset(game_row)
    frame = np.full((SCREEN[1], SCREEN[0], 3), 200, dtype=np.uint8)
    step = agent.act(frame, 0.0)
    (click,) = step.actions
    assert isinstance(click, Click) and (click.x, click.y) == (80, 60)  # (40, 30) of 80x60
    user = client.requests[0][-1]["content"]
    images = [part for part in user if part["type"] == "image_url"]
    sent = resized(frame, (80, 60))
    assert images[0]["image_url"]["url"] == image_data_url(sent)
    assert "which is 80 pixels wide and 60 pixels high" in user[-1]["text"]

    unscaled = dataclasses.replace(preset, image_scale=1.0)
    again = Agent(ServedModelPolicy(unscaled, client), unscaled, condition)
    again.reset(game_row)
    step = again.act(frame, 0)
    (click,) = step.actions
    assert (click.x, click.y) == (40, 30)
