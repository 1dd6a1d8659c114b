"""A registry survey in conformance mode (benchmarks/registry_corpus.py --conformance): each row
is acquired and put through the whole runtime contract, its verdict is kept apart from the launch
survey's, and a second survey reads it back instead of playing the game again."""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.catalog.launch_survey import checked, passed, passed_rows, summary, survey
from playsuite.corpus import GameEntry
from playsuite.harness.conformance import CHECKS

PROBE = Path(__file__).resolve().parents[2] / "tests/fixtures/probe_game"


def row(game_id: str, entry: str) -> GameEntry:
    return GameEntry.from_dict(
        {
            "id": game_id,
            "title": game_id,
            "source": "local",
            "package": str(PROBE),
            "runtime": "pygame",
            "entry": entry,
        }
    )


@pytest.mark.slow
def test_conformance_survey_checks_every_contract_clause_and_resumes(tmp_path: Path) -> None:
    rows = [row("probe-good", "main.py"), row("probe-no-entry", "missing.py")]
    good, broken = list(survey(rows, tmp_path, conformance=True))
    assert passed(good), good
    assert [c["name"] for c in good["checks"]] == list(CHECKS)
    assert all(c["ok"] for c in good["checks"]) and good["failed_check"] is None
    assert not passed(broken) and "missing.py" in broken["error"]
    assert checked(tmp_path, "probe-good", conformance=True)
    assert not checked(tmp_path, "probe-good")  # the launch survey's results stay apart
    assert (tmp_path / "logs/probe-good.conformance.log").is_file()

    again = list(survey(rows[:1], tmp_path, conformance=True))
    assert again == [good]  # read back, not played again (wall_s would differ)
    text = summary([good, broken])
    assert "pygame           2      1" in text and "missing.py" not in text  # paths blanked
    assert [r.id for r in passed_rows(rows, [good, broken])] == ["probe-good"]


def test_a_harness_bug_on_one_row_is_its_result_and_the_survey_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playsuite.catalog import launch_survey

    def launch_row(row, *args, **kwargs):
        if row.id == "probe-bug":
            raise ValueError("frame size changed")
        return {"game": row.id, "status": "ok", "ok": True}

    monkeypatch.setattr(launch_survey, "launch_row", launch_row)
    rows = [row("probe-bug", "main.py"), row("probe-next", "main.py")]
    bug, after = list(survey(rows, tmp_path, conformance=True))
    assert bug["status"] == "harness_error" and "ValueError: frame size changed" in bug["error"]
    assert passed(after)
    assert "Traceback" in (tmp_path / "logs/probe-bug.conformance.log").read_text()


def test_writing_passed_rows_over_a_table_keeps_other_rows_and_hand_declared_tasks(
    tmp_path: Path,
) -> None:
    """--write-passed over config/corpora/registry.tsv: a second survey (another registry, a
    recheck) must not drop the rows it did not check, nor the probes and tasks a person declared."""
    from playsuite.catalog.launch_survey import merge_passed
    from playsuite.corpus import load_corpus, write_corpus_tsv

    task = {"name": "score_5", "instruction": "Score 5 points.", "probe": "score", "target": 5}
    declared = GameEntry.from_dict(
        row("probe-good", "old.py").to_dict() | {"probes": {"score": "score"}, "tasks": [task]}
    )
    table = tmp_path / "registry.tsv"
    write_corpus_tsv([row("other-survey", "main.py"), declared, row("probe-gone", "x.py")], table)
    earlier = load_corpus(table)
    # this survey rechecked probe-good (passed; its check found main.py) and probe-gone (failed),
    # and found a new game
    rows = [row("probe-good", "old.py"), row("probe-gone", "x.py"), row("probe-new", "main.py")]
    results = [
        {"game": "probe-good", "status": "ok", "ok": True, "entry": "main.py"},
        {"game": "probe-gone", "status": "launch_failed", "ok": False},
        {"game": "probe-new", "status": "ok", "ok": True},
    ]
    write_corpus_tsv(merge_passed(earlier, rows, results), table)
    merged = {r.id: r for r in load_corpus(table)}
    assert list(merged) == ["other-survey", "probe-good", "probe-new"]
    good = merged["probe-good"]
    assert good.entry == "main.py" and good.probes == {"score": "score"}
    assert [t["name"] for t in good.tasks] == ["score_5"]
