"""The registry survey's table (playsuite.catalog.survey, rule survey_table): one row per
candidate a registry lists, ``admitted`` or the reason in a few words, and the date; and the
launch stage's verdicts that feed it (the check, the date, a harness error kept as a result)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from playsuite.catalog import launch as launch_module
from playsuite.catalog.curate import write_decisions
from playsuite.catalog.filters import Decision
from playsuite.catalog.ingest import RawGame, write_records
from playsuite.catalog.launch import step_launch
from playsuite.catalog.survey import (
    ADMITTED,
    read_survey,
    step_survey,
    survey_rows,
    survey_summary,
)


def game(game_id: str, build: str = "linux") -> RawGame:
    return RawGame(
        id=game_id, source="debian", source_id=game_id.removeprefix("debian-"), title=game_id,
        build=build, version="1.0-2",
    )  # fmt: skip


RECORDS = [
    game("debian-kept"),
    game("debian-toy"),
    game("debian-mute"),
    game("debian-py", "python"),
]
DECISIONS = {
    "debian-kept": Decision("debian-kept", "debian"),
    "debian-toy": Decision("debian-toy", "debian", "not_a_game", "screensaver (debtags)"),
    "debian-mute": Decision(
        "debian-mute", "debian", "launch", "launch dry-run input check failed:\nno reaction"
    ),
    "debian-py": Decision("debian-py", "debian", "launch", "no entry point known"),
}
RESULTS: dict[str, dict[str, Any]] = {
    "debian-kept": {"game": "debian-kept", "status": "ok", "checked": "2026-12-07"},
    "debian-mute": {"game": "debian-mute", "status": "input check failed", "checked": "2026-12-06"},
}


def test_every_candidate_has_an_outcome_and_a_date() -> None:
    rows = survey_rows(RECORDS, DECISIONS, RESULTS, read_on="2026-12-01")
    assert [r.candidate for r in rows] == ["kept", "toy", "mute", "py"]  # record order
    by_id = {r.id: r for r in rows}
    assert by_id["debian-kept"].outcome == ADMITTED and by_id["debian-kept"].stage == ""
    assert by_id["debian-toy"].outcome == "not a game"
    assert by_id["debian-mute"].outcome == "input check failed"
    assert by_id["debian-py"].outcome == "no single entry"
    assert by_id["debian-py"].runtime == "pygame" and by_id["debian-py"].version == "1.0-2"
    # a checked candidate carries the day of its check; the others the day the index was read
    assert [r.checked for r in rows] == ["2026-12-07", "2026-12-01", "2026-12-06", "2026-12-01"]
    assert "\n" not in by_id["debian-mute"].detail


def test_a_harness_error_is_not_blamed_on_the_game() -> None:
    decisions = {
        **DECISIONS,
        "debian-kept": Decision("debian-kept", "debian", "launch", "launch dry-run harness_error"),
    }
    results = {"debian-kept": {"game": "debian-kept", "status": "harness_error"}}
    rows = survey_rows(RECORDS, decisions, results, read_on="2026-12-01")
    assert rows[0].outcome == "harness error"


def test_step_survey_writes_a_table_that_reads_back(tmp_path: Path) -> None:
    write_records(RECORDS, tmp_path / "records.jsonl")
    write_decisions(DECISIONS.values(), tmp_path / "decisions.tsv")
    snapshot = {"sources": {"debian": {"read_at": "2026-12-01T10:00:00+00:00"}}}
    (tmp_path / "snapshot.json").write_text(json.dumps(snapshot))
    launch = []
    for game_id, result in RESULTS.items():
        launch.append(tmp_path / f"{game_id}.json")
        launch[-1].write_text(json.dumps(result))
    rows = step_survey(
        tmp_path / "records.jsonl", tmp_path / "decisions.tsv", tmp_path / "snapshot.json",
        launch, tmp_path / "debian.tsv", tmp_path / "debian.md", "debian",
    )  # fmt: skip
    assert read_survey(tmp_path / "debian.tsv") == rows
    summary = (tmp_path / "debian.md").read_text()
    assert summary.startswith("# Survey of debian: 4 candidates")
    assert "| native | 1 |" in summary and "| not a game | 1 |" in summary


def test_summary_counts_admitted_games_per_runtime() -> None:
    rows = survey_rows(RECORDS, {**DECISIONS, "debian-py": Decision("debian-py", "debian")}, {}, "")
    summary = survey_summary(rows, "debian")
    assert "| native | 1 |" in summary and "| pygame | 1 |" in summary and "| all | 2 |" in summary


def _triaged(tmp_path: Path) -> tuple[Path, Path]:
    records = tmp_path / "records.jsonl"
    write_records([game("debian-kept")], records)
    triage = tmp_path / "triage.jsonl"
    triage.write_text(json.dumps({"id": "debian-kept", "risk": 0, "policy": "clean"}) + "\n")
    return records, triage


def test_a_harness_bug_on_one_game_is_that_games_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A survey of hundreds of games keeps going past a bug of the harness: the game's verdict
    says harness_error with the exception, and it is written like any other verdict."""

    def broken(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise KeyError("screen")

    monkeypatch.setattr(launch_module, "launch_candidate", broken)
    records, triage = _triaged(tmp_path)
    out = tmp_path / "launch/debian-kept.json"
    result = step_launch(records, triage, "debian-kept", "kept", out, conformance=True)
    assert result["status"] == "harness_error" and result["ok"] is False
    assert "KeyError" in result["error"] and "screen" in result["error"]
    assert result["check"] == "conformance" and len(result["checked"]) == 10
    assert json.loads(out.read_text()) == result
    assert [p.name for p in out.parent.iterdir()] == ["debian-kept.json"]  # no scratch left


def test_a_verdict_says_which_check_made_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def launched(*args: Any, conformance: bool = False, **kwargs: Any) -> dict[str, Any]:
        seen["conformance"] = conformance
        return {"game": "debian-kept", "runtime": "native", "ok": True, "status": "ok"}

    monkeypatch.setattr(launch_module, "launch_candidate", launched)
    records, triage = _triaged(tmp_path)
    result = step_launch(records, triage, "debian-kept", "kept", tmp_path / "out.json")
    assert seen == {"conformance": False}
    assert result["check"] == "launch" and result["wall_s"] >= 0


def test_candidates_the_ingest_left_out_are_rows_too(tmp_path: Path) -> None:
    """A PyPI survey looks up thousands of candidates and makes records of the games only;
    the others, listed in its snapshot's ``left_out``, are rows of the table with why."""
    write_records(RECORDS[:1], tmp_path / "records.jsonl")
    write_decisions([DECISIONS["debian-kept"]], tmp_path / "decisions.tsv")
    snapshot = {"sources": {"pypi": {"read_at": "2026-12-02T08:00:00Z"}}}
    (tmp_path / "snapshot.json").write_text(json.dumps(snapshot))
    left = [
        {"name": "game-stats", "version": "1.0", "outcome": "not a game", "detail": "no pygame"},
        {"name": "gone-game", "version": "", "outcome": "not on PyPI", "detail": "404"},
    ]
    (tmp_path / "snapshot.pypi.json").write_text(json.dumps({"left_out": left}))
    rows = step_survey(
        tmp_path / "records.jsonl", tmp_path / "decisions.tsv", tmp_path / "snapshot.json",
        [], tmp_path / "pypi.tsv", tmp_path / "pypi.md", "pypi",
        excerpts=[tmp_path / "snapshot.pypi.json"],
    )  # fmt: skip
    assert [(r.id, r.outcome, r.stage, r.checked) for r in rows[1:]] == [
        ("pypi-game-stats", "not a game", "ingest", "2026-12-02"),
        ("pypi-gone-game", "not on PyPI", "ingest", "2026-12-02"),
    ]
    assert "| not on PyPI | 1 |" in (tmp_path / "pypi.md").read_text()
