"""The offline question set from hand-written annotations (exact expectations)."""

from __future__ import annotations

import random

import pytest

from playsuite.horizon.questions import build_questions, load_annotated
from playsuite.records.horizon import read_questions, write_questions


def _by_id(doc):
    return {q["id"]: q for q in doc["questions"]}


def test_every_task_has_one_right_option_among_four(annotated_dirs, tmp_path) -> None:
    items, failed = load_annotated(annotated_dirs())
    assert failed == 0 and len(items) == 3
    doc = build_questions(items, seed=7, sample_fps=1.0)
    write_questions(tmp_path / "q.json", doc)  # validates against the schema
    assert read_questions(tmp_path / "q.json") == doc
    tasks = {q["task"] for q in doc["questions"]}
    assert tasks == {"T1", "T1-frames", "T1-multi", "T1-next", "T2", "T2-up", "T3", "T3-text"}
    qs = _by_id(doc)
    t1 = qs["T1:local/p/c/alpha#0:o1"]
    assert t1["options"][t1["answer"]] == "hold:right:2.0"
    assert "walk right" in t1["question"] and t1["frames"] == [3, 4]
    assert t1["distractors"] == "game"  # alpha has eight different inputs over two episodes
    assert "walk right" not in qs["T1-frames:local/p/c/alpha#0:o1"]["question"]
    t2 = qs["T2:local/p/c/alpha#0:g0"]
    assert t2["options"][t2["answer"]] == "(1) press enter on the title | (2) walk right"
    right = ["press enter on the title", "walk right"]
    alpha_ops = {"jump over the gap", "walk left", "open the menu", "pick the second item"}
    alpha_ops |= {"close the menu", "fire"}
    for option in t2["options"]:
        steps = [part.split(") ", 1)[1] for part in option.split(" | ")]
        reordered = sorted(steps) == sorted(right)
        swapped = sum(a != b for a, b in zip(steps, right, strict=True)) == 1
        assert reordered or (swapped and set(steps) - set(right) <= alpha_ops), option
    up = qs["T2-up:local/p/c/alpha#0:g1"]
    assert up["options"][up["answer"]] == "A1 goal 1"
    t3 = qs["T3:local/p/c/alpha#0:o2"]
    right = t3["options"][t3["answer"]]
    assert right.startswith("Strategy: A1 strategy || Goal: A1 goal 1 || Operation: jump")
    assert right.endswith("Inputs: space")
    # the diagnostic variants (GameHorizon's T*)
    multi = qs["T1-multi:local/p/c/alpha#0:o1"]
    assert multi["options"][multi["answer"]] == "hold:right:2.0"
    assert all(t in multi["question"] for t in ("A1 strategy", "A1 goal", "walk right"))
    after = qs["T1-next:local/p/c/alpha#0:o1"]  # o1's frames, o2's inputs
    assert after["frames"] == [3, 4] and after["options"][after["answer"]] == "space"
    assert "walk right" not in after["question"]
    last = max(int(q["id"].rsplit(":o", 1)[1]) for q in doc["questions"] if "alpha#0:o" in q["id"])
    assert f"T1-next:local/p/c/alpha#0:o{last}" not in qs  # nothing came after the last one
    text = qs["T3-text:local/p/c/alpha#0:o2"]
    assert text["options"][text["answer"]] == right.split(" || Inputs: ")[0]
    assert not any("Inputs:" in o for o in text["options"])
    assert len(set(text["options"])) == 4


def test_small_games_borrow_distractors_or_are_skipped(annotated_dirs) -> None:
    items, _ = load_annotated(annotated_dirs())
    doc = build_questions(items, seed=7, sample_fps=1.0)
    qs = _by_id(doc)
    # beta has two inputs only: its T1 wrong options come from alpha
    assert qs["T1:local/p/c/beta:o0"]["distractors"] == "corpus"
    # beta has one goal: no bottom-up question can be made from its own game... nor is one
    # invented, since alpha's goals are there to borrow
    assert qs["T2-up:local/p/c/beta:g0"]["distractors"] == "corpus"
    alone = [i for i in items if i.game == "beta"]
    solo = build_questions(alone, seed=7, sample_fps=1.0)
    assert solo["counts"]["T1"] == 0 and solo["skipped"]["T1"] == 2


def test_the_set_is_seeded_and_order_free(annotated_dirs) -> None:
    items, _ = load_annotated(annotated_dirs())
    first = build_questions(items, seed=3, sample_fps=1.0)
    shuffled = list(items)
    random.Random(1).shuffle(shuffled)
    again, _ = load_annotated([i.episode for i in shuffled])
    assert build_questions(again, seed=3, sample_fps=1.0) == first
    other = build_questions(items, seed=4, sample_fps=1.0)
    assert [q["options"] for q in other["questions"]] != [q["options"] for q in first["questions"]]
    capped = build_questions(items, seed=3, sample_fps=1.0, max_per_task=2)
    assert all(n <= 2 for n in capped["counts"].values())


def test_a_mismatched_sampling_rate_is_refused(annotated_dirs) -> None:
    items, _ = load_annotated(annotated_dirs())
    with pytest.raises(ValueError, match="fps"):
        build_questions(items, seed=0, sample_fps=2.0)
