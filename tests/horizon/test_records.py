"""The horizon files' contract (playsuite.records.horizon): schema, structure, versions."""

from __future__ import annotations

import copy
import json

import pytest

from playsuite.records.horizon import (
    ANNOTATION_NAME,
    HorizonError,
    index_row,
    read_annotation,
    read_annotation_index,
    read_answers,
    write_annotation,
    write_annotation_index,
    write_answers,
)
from tests.horizon.conftest import annotation

DOC = annotation("alpha", "A", [[("a", "x"), ("b", "y")], [("c", "z")]])


def test_round_trip(tmp_path) -> None:
    path = write_annotation(tmp_path, DOC)
    assert path == tmp_path / ANNOTATION_NAME
    assert read_annotation(tmp_path) == DOC
    write_annotation_index(tmp_path / "index.tsv", [index_row(tmp_path, DOC)])
    (row,) = read_annotation_index(tmp_path / "index.tsv")
    assert (row["status"], row["operations"], row["goals"], row["strategies"]) == ("ok", 3, 2, 1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["goals"][0]["children"].reverse(), "in order"),
        (lambda d: d["goals"][1]["children"].append("o0"), "exactly once"),
        (lambda d: d["strategies"].clear(), "every level"),
        (lambda d: d.update(format=2), "newer"),
        (lambda d: d.update(status="failed"), "says why"),
        (lambda d: d["operations"][1].update(start_step=0), "out of order"),
        (lambda d: d["operations"][0].update(instruction=""), "instruction"),
        (lambda d: d.pop("usage"), "usage"),
    ],
)
def test_broken_annotations_are_refused_by_name(tmp_path, change, message) -> None:
    doc = copy.deepcopy(DOC)
    change(doc)
    with pytest.raises(HorizonError, match=message) as err:
        write_annotation(tmp_path, doc)
    assert err.value.file == tmp_path / ANNOTATION_NAME
    assert not (tmp_path / ANNOTATION_NAME).exists()  # nothing half-valid is written
    (tmp_path / ANNOTATION_NAME).write_text(json.dumps(doc))
    with pytest.raises(HorizonError, match=message):
        read_annotation(tmp_path)


def test_failed_annotation_needs_no_levels(tmp_path) -> None:
    doc = {**copy.deepcopy(DOC), "status": "failed", "error": "no video"}
    doc.update(operations=[], goals=[], strategies=[])
    write_annotation(tmp_path, doc)
    assert read_annotation(tmp_path)["error"] == "no video"


def test_answers_are_consistent(tmp_path) -> None:
    base = {"id": "q", "task": "T1", "game": "g", "error": None}
    good = {
        "format": 1,
        "preset": "p",
        "questions_sha256": "0" * 64,
        "usage": {},
        "answers": [
            {**base, "choice": 2, "correct": True, "status": "ok"},
            {**base, "id": "r", "choice": None, "correct": False, "status": "failed"},
        ],
    }
    write_answers(tmp_path / "a.json", good)
    assert read_answers(tmp_path / "a.json") == good
    bad = copy.deepcopy(good)
    bad["answers"][1]["correct"] = True
    with pytest.raises(HorizonError, match="cannot be correct"):
        write_answers(tmp_path / "b.json", bad)
    (tmp_path / "c.json").write_text("{not json")
    with pytest.raises(HorizonError, match="not JSON"):
        read_answers(tmp_path / "c.json")
