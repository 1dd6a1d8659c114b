"""The catalog's launch dry-run: rule catalog_launch unpacks triaged sample games from their
archives and starts them for real in the sandbox; the funnel's launch stage reads the verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playsuite.catalog.filters import launch_exclusion
from playsuite.catalog.ingest import RawGame, read_records
from playsuite.catalog.launch import concise_error, find_native_entry, step_launch

PASSING = "pyweek-35-clockwork"  # a pygame game that runs and moves with the arrow keys
FAILING = "itch-1018"  # its script throws before the first frame: the page stays blank


@pytest.fixture(scope="module")
def launched(catalog_sample: Path) -> Path:
    """The repository copy in which the workflow built the sample catalog: its launch stage
    dry-ran every candidate, these two games among them (conftest.catalog_sample)."""
    return catalog_sample


def record(work: Path, game_id: str) -> RawGame:
    records = read_records(work / "results/catalog/sample/records.jsonl")
    return next(g for g in records if g.id == game_id)


@pytest.mark.games
@pytest.mark.browser
@pytest.mark.slow
def test_playable_game_passes(launched: Path) -> None:
    result = json.loads((launched / f"results/catalog/sample/launch/{PASSING}.json").read_text())
    assert result["ok"] is True and result["status"] == "ok"
    assert result["runtime"] == "pygame" and result["entry"] == "run_game.py"
    assert result["non_blank_frames"] > 0 and result["frames_changed_by_input"] > 0
    assert result["policy"] == "clean" and len(result["files_sha256"]) == 64
    game = record(launched, PASSING)
    assert launch_exclusion(game, result).kept
    # the unpacked copies were temporary: only the verdicts stay, one per launched candidate
    verdicts = list((launched / "results/catalog/sample/launch").iterdir())
    ids = {g.id for g in read_records(launched / "results/catalog/sample/records.jsonl")}
    assert {f"{FAILING}.json", f"{PASSING}.json"} <= {p.name for p in verdicts}
    assert all(p.is_file() and p.suffix == ".json" and p.stem in ids for p in verdicts), verdicts


@pytest.mark.games
@pytest.mark.browser
@pytest.mark.slow
def test_broken_game_fails_with_its_reason(launched: Path) -> None:
    result = json.loads((launched / f"results/catalog/sample/launch/{FAILING}.json").read_text())
    assert result["ok"] is False and result["status"] == "launch_failed"
    assert "screen stayed blank" in result["error"]
    # the page's own error is in the reason, not only the runtime's verdict
    assert "Cannot read properties of undefined (reading 'start')" in result["error"]
    game = record(launched, FAILING)
    decision = launch_exclusion(game, result)
    assert decision.stage == "launch"
    assert decision.reason.startswith("launch dry-run launch_failed: not ready after")
    log = (launched / f"results/logs/catalog/sample/launch/{FAILING}.log").read_text()
    assert "triage crashy.zip: risk 0, policy clean" in log
    assert "pageerror:" in log


def test_quarantined_candidate_is_never_launched(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text(
        json.dumps({"id": "itch-9", "source": "itch", "source_id": "9", "title": "Gift"}) + "\n"
    )
    triage = tmp_path / "triage.jsonl"
    triage.write_text(
        json.dumps({"id": "itch-9", "risk": 4, "policy": "quarantine", "stage": "triage"}) + "\n"
    )
    with pytest.raises(ValueError, match="did not pass triage"):
        step_launch(records, triage, "itch-9", "gift.zip", tmp_path / "out.json")
    assert not (tmp_path / "out.json").exists()


def test_native_entry_is_found(tmp_path: Path) -> None:
    build = tmp_path / "files"
    (build / "game/bin").mkdir(parents=True)
    (build / "game/bin/run").write_bytes(b"\x7fELF")
    assert find_native_entry(build, ["game/bin/run"]) == "game/bin/run"
    launcher = build / "game/start.sh"
    launcher.write_text("#!/bin/sh\nexec ./bin/run\n")
    assert find_native_entry(build, ["game/bin/run"]) == "game/bin/run"  # not executable
    launcher.chmod(0o755)
    assert find_native_entry(build, ["game/bin/run"]) == "game/start.sh"
    other = build / "game/editor.sh"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    assert find_native_entry(build, []) == ""  # two launchers side by side: ambiguous


def test_errors_fit_on_one_line() -> None:
    error = (
        "game ended before its first frame: Traceback (most recent call last):\n"
        '  File "/game/run_game.py", line 4, in <module>\n    main()\n'
        "FileNotFoundError: [Errno 2] No such file or directory: '/game/data/Map.txt'\n"
    )
    assert concise_error(error) == (
        "game ended before its first frame: FileNotFoundError: [Errno 2] No such file or "
        "directory: '/game/data/Map.txt'"
    )
    assert concise_error("stayed blank", "pageerror: x") == "stayed blank; pageerror: x"
    assert concise_error("blank; pageerror: x", "pageerror: x") == "blank; pageerror: x"
