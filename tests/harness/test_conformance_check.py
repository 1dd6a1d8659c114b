"""The runtime contract as a check any row can be put through (playsuite.harness.conformance):
a conforming fixture game passes every check; a broken row fails at the first check it breaks,
says why, and the checks after it are reported as not reached."""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.corpus import GameEntry
from playsuite.harness.conformance import CHECKS, check_game
from playsuite.records.conformance import read_table, summary, write_table
from playsuite.runtimes.acquire import acquire

REPO = Path(__file__).resolve().parents[2]


def probe_row(**fields: object) -> GameEntry:
    return GameEntry.from_dict(
        {
            "id": "probe-game",
            "title": "Probe game",
            "source": "local",
            "package": "tests/fixtures/probe_game",
            "runtime": "pygame",
            "entry": "main.py",
            **fields,
        }
    )


@pytest.mark.slow
def test_a_conforming_game_passes_and_a_broken_row_says_where_it_broke(tmp_path: Path) -> None:
    good = probe_row()
    files = acquire(good, tmp_path / "games", base_dir=REPO).files
    passed = check_game(good, files, tmp_path / "good")
    assert [c.name for c in passed.checks] == list(CHECKS)
    assert passed.ok, passed.to_dict()
    assert "20 frames = 2.00 s" in next(c.detail for c in passed.checks if c.name == "video")

    broken = probe_row(id="probe-broken", entry="no_such_main.py")
    report = check_game(broken, files, tmp_path / "broken")
    verdict = report.to_dict()
    assert not report.ok and verdict["failed_check"] == "launch"
    assert "no_such_main.py" in verdict["reason"]
    states = {c["name"]: c["ok"] for c in verdict["checks"]}
    assert states == {
        "launch": False,
        "frozen": None,
        "slice": None,
        "video": None,
        "stop": None,
        "input": None,
    }

    table = tmp_path / "conformance.tsv"
    write_table(table, [passed.to_dict(), verdict])
    rows = read_table(table)
    assert [(r["game"], r["ok"], r["launch"], r["frozen"]) for r in rows] == [
        ("probe-broken", "no", "fail", "-"),
        ("probe-game", "yes", "pass", "pass"),
    ]
    text = summary(rows)
    assert "| pygame | 2 | 1 | 1 |" in text and "| launch: " in text, text
