"""The live mode's events as each slice's actions, and the session between page and episode
(no game: the page's requests and the episode's steps are called directly)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from playsuite.actions import Click, Hold, Move, Scroll, Wait
from playsuite.agents.agent import Agent
from playsuite.agents.human import HumanPolicy, human_preset
from playsuite.agents.policy import StepRequest, StopEpisode
from playsuite.config import Condition
from playsuite.human.events import EventError, LiveInput, parse_event
from playsuite.human.play import PlayError, PlaySession
from playsuite.runtimes.timeline import KeysDown, schedule

SCREEN = (320, 240)


def take(live: LiveInput, *events: dict, seconds: float = 0.1):
    for n, obj in enumerate(events):
        live.add(parse_event(obj, 0.01 * n, SCREEN))
    return live.take(seconds)


def test_a_key_still_down_is_held_past_its_slice_and_a_tap_within_it() -> None:
    live = LiveInput()
    actions, events = take(live, {"type": "keydown", "key": "space"})
    assert actions == [Hold(("space",), 0.1, release=False)] and len(events) == 1
    assert take(live)[0] == [Hold(("space",), 0.1, release=False)]  # still down: kept down
    # released in this slice: no hold keeps it (the runtime lets it go); a key pressed now is
    actions, _ = take(
        live, {"type": "keyup", "key": "space"}, {"type": "keydown", "key": "ArrowLeft"}
    )
    assert actions == [Hold(("left",), 0.1, release=False)]
    assert take(live, {"type": "keyup", "key": "arrowleft"})[0] == []
    # pressed and released in one slice: an ordinary hold of the slice, after the other input,
    # while a key still down goes first (it does not delay what follows it)
    actions, _ = take(
        live,
        {"type": "keydown", "key": "ArrowRight"},
        {"type": "keydown", "key": "a"},
        {"type": "keyup", "key": "a"},
        {"type": "mousedown", "button": 0, "x": 5, "y": 6},
    )
    assert actions == [
        Hold(("right",), 0.1, release=False),
        Click(5, 6),
        Hold(("a",), 0.1),
    ]


def test_a_key_held_over_several_slices_is_pressed_once() -> None:
    """The CI failure and the 300 ms jump: the keyup arrives slices after the keydown; played
    through the runtimes' schedule with its state, the game sees one press and one release."""
    live, down = LiveInput(), KeysDown()
    played: list[tuple[int, str, str]] = []
    slices = [[{"type": "keydown", "key": " "}], [], [{"type": "keyup", "key": " "}], []]
    for n, slice_events in enumerate(slices):
        actions, _ = take(live, *slice_events)
        played += [(n, e.kind, e.key) for e in schedule(actions, 0.1, down)]
    assert played == [(0, "key_down", "space"), (2, "key_up", "space")]
    assert down.keys == []
    # tapped twice in two slices: two presses, each released within its slice
    played = []
    for _ in range(2):
        actions, _ = take(live, {"type": "keydown", "key": "x"}, {"type": "keyup", "key": "x"})
        played += [e.kind for e in schedule(actions, 0.1, down)]
    assert played == ["key_down", "key_up"] * 2


def test_keys_left_down_survive_the_standard_grammar() -> None:
    """The person's answer is read back by the models' parser, which has no word for a key left
    down: the policy names those keys beside the text and the agent puts them back."""
    session = PlaySession("live", 0.1)
    agent = Agent(HumanPolicy(session), human_preset(), Condition.parse("k0-hz10-base"))
    agent.reset({"id": "probe", "title": "Probe", "controls": "Arrows move, Z jumps."})
    session.start()
    frame = np.zeros((SCREEN[1], SCREEN[0], 3), np.uint8)
    session.add_events(
        [
            {"type": "keydown", "key": "ArrowRight", "t": 0.0},
            {"type": "keydown", "key": "z", "t": 0.01},
            {"type": "keyup", "key": "z", "t": 0.02},
        ]
    )
    step = agent.act(frame, 0.0)
    assert step.response == "Action: hold:right:0.1 hold:z:0.1"
    assert step.actions == [Hold(("right",), 0.1, release=False), Hold(("z",), 0.1)]
    assert step.actions[0].to_dict()["release"] is False
    session.add_events([{"type": "keyup", "key": "ArrowRight", "t": 0.15}])
    assert agent.act(frame, 0.1).actions == [Wait()]


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
    with pytest.raises(PlayError, match="paced"):  # a model cannot leave a key down either
        session.submit(0, [{"kind": "hold", "keys": ["a"], "seconds": 1, "release": False}])
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
    assert second.keep_down == third.keep_down == frozenset({"a"})  # still down: held past


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
