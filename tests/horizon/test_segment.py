"""Action-aware segmentation and the duration-bounded partition."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playsuite.horizon.segment import (
    action_text,
    partition,
    same_event,
    sample_indices,
    segment_operations,
    step_label,
)
from playsuite.records.episode import read_trace


def test_labels_sort_inputs_into_events() -> None:
    assert step_label([{"kind": "wait"}]) == "idle"
    assert step_label([]) == "idle"
    assert step_label([{"kind": "hold", "keys": ["right"], "seconds": 1.0}]) == "sustained:right"
    assert step_label([{"kind": "move", "dx": 5, "dy": 0}]) == "sustained:camera"
    held_and_tap = [{"kind": "hold", "keys": ["w"], "seconds": 1}, {"kind": "key", "keys": ["e"]}]
    assert step_label(held_and_tap) == "discrete:key"  # the discrete event has priority
    assert same_event("sustained:right", "sustained:right")
    assert not same_event("sustained:right", "sustained:left")
    assert not same_event("discrete:key", "discrete:key")  # each tap starts a clip


def test_action_text_uses_the_standard_grammar() -> None:
    actions = [{"kind": "key", "keys": ["ctrl", "s"]}, {"kind": "click", "x": 3, "y": 4}]
    assert action_text(actions) == "ctrl+s click:3,4"
    assert action_text([{"kind": "invalid", "raw": "??", "reason": "no"}]) == "wait"


def test_partition_keeps_durations_in_range_then_follows_votes() -> None:
    # six 1-s items, votes say split after the third; range 2-4 s allows that
    groups = partition([1] * 6, [True, True, False, True, True], 2, 4)
    assert groups == [(0, 3), (3, 6)]
    # a range that forbids it wins over the votes: 6 s must be one group
    assert partition([1] * 6, [True, True, False, True, True], 6, 8) == [(0, 6)]
    # too short for the range: one group, not many
    assert partition([1, 1], [False], 60, 120) == [(0, 2)]
    assert partition([], [], 1, 5) == []
    with pytest.raises(ValueError, match="votes"):
        partition([1, 1], [], 1, 5)


@given(
    st.lists(st.floats(0.1, 10), min_size=1, max_size=25),
    st.data(),
    st.floats(0.5, 20),
    st.floats(0, 30),
)
def test_partition_covers_every_item_once(durations, data, low, span) -> None:
    votes = data.draw(
        st.lists(st.booleans(), min_size=len(durations) - 1, max_size=len(durations) - 1)
    )
    groups = partition(durations, votes, low, low + span)
    assert groups[0][0] == 0 and groups[-1][1] == len(durations)
    assert all(a < b for a, b in groups)
    assert all(groups[i][1] == groups[i + 1][0] for i in range(len(groups) - 1))


@pytest.mark.slow
def test_segmentation_of_a_recorded_trace(recorded) -> None:
    steps = read_trace(recorded[0])
    clips = segment_operations(steps, 1, 5, t_end=24.0)
    # steps every 3 s; two of them (6.0 and 9.0 s) hold right: one sustained event, but 6 s is
    # over the 5-s bound, so the range keeps them apart
    assert [c.start for c in clips] == list(range(len(steps)))
    assert clips[0].label == "idle" and clips[1].label == "discrete:key"
    assert clips[-1].t_end == 24.0
    longer = segment_operations(steps, 1, 8, t_end=24.0)
    assert any(c.end - c.start == 2 and c.label == "sustained:right" for c in longer)
    assert clips[1].actions == ("enter",)


def test_frame_indices_inside_a_clip() -> None:
    assert sample_indices(3.0, 6.0, 1.0, 24, 4) == [3, 4, 5]
    assert sample_indices(0.0, 24.0, 1.0, 24, 4) == [0, 8, 15, 23]
    assert sample_indices(2.2, 2.4, 1.0, 24, 4) == [2]  # shorter than a sample period
    assert sample_indices(30.0, 33.0, 1.0, 24, 4) == [23]  # past the end: the last frame
