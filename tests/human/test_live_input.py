"""The live mode's events as each slice's actions, and the session between page and episode
(no game: the page's requests and the episode's steps are called directly)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from playsuite.actions import Click, Hold, Move, Scroll, Wait
from playsuite.agents.human import HumanPolicy, human_preset
from playsuite.agents.policy import StepRequest, StopEpisode
from playsuite.human.events import EventError, LiveInput, parse_event
from playsuite.human.play import PlayError, PlaySession

SCREEN = (320, 240)


def take(live: LiveInput, *events: dict, seconds: float = 0.1):
    for n, obj in enumerate(events):
        live.add(parse_event(obj, 0.01 * n, SCREEN))
    return live.take(seconds)


def test_a_tap_is_held_for_its_slice_and_a_held_key_carries_over() -> None:
    live = LiveInput()
    actions, events = take(live, {"type": "keydown", "key": "space"})
    assert actions == [Hold(("space",), 0.1)] and len(events) == 1
    assert take(live)[0] == [Hold(("space",), 0.1)]  # still down: held again
    # released in this slice: not pressed once more; another key pressed now is
    actions, _ = take(
        live, {"type": "keyup", "key": "space"}, {"type": "keydown", "key": "ArrowLeft"}
    )
    assert actions == [Hold(("left",), 0.1)]
    assert take(live, {"type": "keyup", "key": "arrowleft"})[0] == []


def test_pointer_events_become_clicks_scrolls_and_moves() -> None:
    live = LiveInput()
    down = {"type": "mousedown", "button": 0, "x": 10.4, "y": 500}
    up = {**down, "type": "mouseup"}
    actions, _ = take(live, down, up, down, up)
    assert actions == [Click(10, 239, "left", 2)]  # clipped to the screen, one double click
    assert take(live, {"type": "wheel", "dy": 3, "x": 5, "y": 6})[0] == [Scroll("down", 1, 5, 6)]
    moves = [{"type": "mousemove", "x": x, "y": 7} for x in (1, 2, 3)]
    assert take(live, *moves)[0] == [Move(x=3, y=7)]
    assert take(live, {"type": "mousemove", "x": 3, "y": 7})[0] == []  # no motion: no move


def test_bad_events_are_refused() -> None:
    for bad in ({"type": "keydown", "key": "nosuchkey"}, {"type": "paste"}, {"type": "wheel"}):
        with pytest.raises(EventError):
            parse_event(bad, 0.0, SCREEN)


def request(step: int) -> StepRequest:
    frame = np.zeros((SCREEN[1], SCREEN[0], 3), np.uint8)
    return StepRequest(frame, {}, step, step * 1.0, SCREEN, "the prompt", wall_left_s=30.0)


def test_paced_session_answers_each_step_once_and_the_person_can_end() -> None:
    session = PlaySession("paced", 1.0)
    policy = HumanPolicy(session)
    replies = []
    worker = threading.Thread(target=lambda: replies.append(policy.act(request(0))))
    worker.start()
    while not session.state()["waiting"]:
        time.sleep(0.01)
    state = session.state()
    assert (
        state["step"] == 0 and state["prompt"] == "the prompt" and session.frame()[:4] == b"\x89PNG"
    )
    with pytest.raises(PlayError, match="kind"):
        session.submit(0, [{"kind": "teleport"}])
    with pytest.raises(PlayError, match="not waiting"):
        session.submit(1, [{"kind": "wait"}])
    session.submit(0, [{"kind": "click", "x": 900, "y": 5}, {"kind": "key", "keys": ["a"]}])
    worker.join(5)
    assert replies[0].text == "Action: click:319,5 a"  # clamped to the screen, then written
    assert replies[0].image_size == SCREEN
    with pytest.raises(PlayError):
        session.submit(0, [{"kind": "wait"}])  # answered already
    done = threading.Event()

    def last_step() -> None:
        with pytest.raises(StopEpisode):
            policy.act(request(1))
        done.set()

    threading.Thread(target=last_step).start()
    while not session.state()["waiting"]:
        time.sleep(0.01)
    session.end()
    assert done.wait(5)


def test_live_session_waits_for_start_and_keeps_the_wall_clock_pace() -> None:
    session = PlaySession("live", 0.1)
    policy = HumanPolicy(session)
    with pytest.raises(PlayError, match="Start"):
        session.add_events([{"type": "keydown", "key": "a"}])
    session.start()
    started = time.perf_counter()
    first = policy.act(request(0))
    session.add_events([{"type": "keydown", "key": "a", "t": 0.05}])
    second = policy.act(request(1))
    third = policy.act(request(2))
    assert time.perf_counter() - started >= 0.19  # two slices of 0.1 s of wall time
    assert first.text == "Action: wait" and second.text == "Action: hold:a:0.1"
    assert second.info["events"] == [{"type": "keydown", "t_game": 1.0, "t_wall": 0.05, "key": "a"}]
    assert third.text == "Action: hold:a:0.1" and "events" not in third.info


def test_the_human_preset_reads_the_standard_grammar() -> None:
    preset = human_preset()
    assert (preset.name, preset.family, preset.parser) == ("human", "human", "standard")
    assert not preset.needs_server and Wait() is not None


def test_a_page_nobody_answers_lets_the_episode_time_out() -> None:
    frame = np.zeros((SCREEN[1], SCREEN[0], 3), np.uint8)
    late = StepRequest(frame, {}, 0, 0.0, SCREEN, "", wall_left_s=0.2)
    for mode in ("paced", "live"):
        started = time.perf_counter()
        answer = PlaySession(mode, 0.1).answer(late)
        assert list(answer.actions) == [Wait()] and answer.info == {"timed_out": True}
        assert time.perf_counter() - started < 2.0
