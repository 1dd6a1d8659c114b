"""The annotator and the answering path over the stand-in model server (a protocol test double:
it checks requests as vLLM does, media limits included, and answers the minimal instance of the
requested schema; it never looks at the frames). What is asserted is structure: every request
well-formed, every file valid, every failure recorded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from playsuite.cli import main
from playsuite.horizon.annotate import horizon_settings
from playsuite.horizon.run import ServeOptions, annotate_episodes, answer_file
from playsuite.records.horizon import (
    read_annotation,
    read_annotation_index,
    read_answers,
    read_questions,
)
from playsuite.registry import load_registry
from playsuite.testing.standin import standin_argv_for_preset

pytestmark = pytest.mark.slow

#: Short ranges, so that a 24-s recording has several goals and strategies.
SETTINGS = {"goal_s": [6, 12], "strategy_s": [12, 24], "merge_window": 3}


def _serve(name: str, **standin) -> ServeOptions:
    registry = load_registry()
    entry = registry.presets.get(name) or registry.judges[name]
    argv = standin_argv_for_preset(entry, "{uds}", **standin)
    return ServeOptions(server_argv=argv, ready_timeout_s=30)


@pytest.fixture(scope="module")
def annotated(recorded, tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("horizon")
    episodes = []
    for src in recorded:  # copies: other tests annotate the same recordings
        dst = root / "local" / "random" / "k0-hz0.33-base" / src.name
        shutil.copytree(src, dst)
        episodes.append(dst)
    settings = horizon_settings(SETTINGS)
    counts = annotate_episodes(
        "tiny-qwen2.5-vl", episodes, settings, _serve("tiny-qwen2.5-vl"), index=root / "index.tsv"
    )
    return {"root": root, "episodes": episodes, "counts": counts, "settings": settings}


def test_annotations_form_a_valid_pyramid(annotated) -> None:
    assert annotated["counts"] == {"ok": 2}
    for episode in annotated["episodes"]:
        doc = read_annotation(episode)  # schema and structure
        assert doc["status"] == "ok" and doc["annotator"] == "tiny-qwen2.5-vl"
        assert doc["episode"] == {
            "corpus": "local",
            "preset": "random",
            "condition": "k0-hz0.33-base",
            "game": episode.name,
        }
        ops, goals, strategies = doc["operations"], doc["goals"], doc["strategies"]
        assert len(ops) == 8  # one per 3-s step: two steps would exceed the 5-s bound
        assert ops[1]["actions"] == ["enter"] and ops[0]["actions"] == ["wait"]
        assert all(1 <= len(o["frames"]) <= 4 for o in ops)
        for goal in goals:
            duration = goal["t_end"] - goal["t_start"]
            assert 6 <= duration <= 12
        assert len(strategies) >= 2 and doc["settings"]["media"] == "image"
        merges = -(-(len(ops) - 1) // 2) + -(-(len(goals) - 1) // 2)  # windows of 3 share one
        assert doc["usage"]["requests"] == len(ops) + len(goals) + len(strategies) + merges
    rows = read_annotation_index(annotated["root"] / "index.tsv")
    assert [r["status"] for r in rows] == ["ok", "ok"]


def test_a_video_judge_annotates_with_clips(recorded, tmp_path) -> None:
    """tiny-judge, a Video-LLM judge, takes one video per prompt: it is shown clips (the stand-in
    checks the count against the preset's limit), and images when asked for."""
    episode = tmp_path / "local" / "random" / "k0-hz0.33-base" / "toy"
    shutil.copytree(recorded[0], episode)
    counts = annotate_episodes(
        "tiny-judge", [episode], horizon_settings(SETTINGS), _serve("tiny-judge")
    )
    assert counts == {"ok": 1}
    assert read_annotation(episode)["settings"]["media"] == "video"
    counts = annotate_episodes(
        "tiny-judge",
        [episode],
        horizon_settings({**SETTINGS, "media": "image"}),
        _serve("tiny-judge"),
    )
    assert counts == {"ok": 1}
    assert read_annotation(episode)["settings"]["media"] == "image"


def test_failures_are_recorded_not_raised(recorded, tmp_path) -> None:
    no_video = tmp_path / "local" / "random" / "k0-hz0.33-base" / "novideo"
    shutil.copytree(recorded[0], no_video)
    (no_video / "episode.mp4").unlink()
    garbled = tmp_path / "local" / "random" / "k0-hz0.33-base" / "garbled"
    shutil.copytree(recorded[0], garbled)
    settings = horizon_settings({**SETTINGS, "attempts": 2})
    counts = annotate_episodes(
        "tiny-qwen2.5-vl",
        [no_video, garbled],
        settings,
        _serve("tiny-qwen2.5-vl", invalid_json_first=10_000),
    )
    assert counts == {"failed": 2}
    assert read_annotation(no_video)["error"] == "the episode has no video"
    error = read_annotation(garbled)["error"]
    assert error.startswith("inference failed") and "schema-valid" in error


def test_questions_answered_through_the_served_path(annotated, tmp_path) -> None:
    index = annotated["root"] / "index.tsv"
    questions = tmp_path / "questions.json"
    assert main(["horizon", "questions", "--index", str(index), "--out", str(questions)]) == 0
    qs = read_questions(questions)
    assert qs["counts"]["T1"] == 16 and qs["counts"]["T3"] > 0
    counts = answer_file(
        "tiny-qwen2.5-vl",
        questions,
        tmp_path / "answers.json",
        annotated["settings"],
        _serve("tiny-qwen2.5-vl"),
    )
    assert counts == {"ok": len(qs["questions"])}
    answers = read_answers(tmp_path / "answers.json")
    assert [a["id"] for a in answers["answers"]] == [q["id"] for q in qs["questions"]]
    # the stand-in always answers "A": right exactly where the right option was shuffled first
    for q, a in zip(qs["questions"], answers["answers"], strict=True):
        assert a["choice"] == 0 and a["correct"] == (q["answer"] == 0)
    out = tmp_path / "accuracy.tsv"
    args = ["horizon", "accuracy", str(tmp_path / "answers.json"), "--resamples", "200"]
    assert main([*args, "--out", str(out)]) == 0
    table = out.read_text().splitlines()
    assert table[0].split("\t")[:3] == ["preset", "task", "questions"]
    assert table[-1].split("\t")[1] == "all"


def test_cli_describes_every_step(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["horizon", "--help"])
    text = capsys.readouterr().out
    for step in ("annotate", "questions", "answer", "accuracy", "correlate"):
        assert step in text


def test_answer_refuses_an_unserved_preset(tmp_path: Path) -> None:
    (tmp_path / "q.json").write_text(json.dumps({}))
    code = main(["horizon", "answer", str(tmp_path / "q.json"), "--preset", "random", "--out", "x"])
    assert code == 2
