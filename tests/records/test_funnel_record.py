"""The catalog funnel record: what the curation stage writes, the reproduction report reads back
through records.funnel, with its columns and counts checked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from playsuite.analysis.outputs import write_stat_table
from playsuite.analysis.reference_cells import funnel_cells
from playsuite.catalog.filters import Decision
from playsuite.catalog.funnel import funnel_table
from playsuite.catalog.ingest import RawGame
from playsuite.records.base import RecordError
from playsuite.records.funnel import read_funnel


def written_funnel(tmp_path: Path) -> Path:
    stages = ["", "python3", "not_a_game", ""]
    games = [RawGame(f"pyweek-{i}", "pyweek", str(i), f"g{i}") for i in range(len(stages))]
    decisions = {g.id: Decision(g.id, g.source, s) for g, s in zip(games, stages, strict=True)}
    csv = tmp_path / "funnel.csv"
    write_stat_table(funnel_table(games, decisions), csv, tmp_path / "funnel.md")
    return csv


def test_the_written_funnel_reads_back_into_the_report_cells(tmp_path: Path) -> None:
    funnel = read_funnel(written_funnel(tmp_path))
    cells = funnel_cells({"pyweek": funnel})
    assert cells["curation/pyweek/pool"].value == 4
    assert cells["curation/pyweek/after_python3"].value == 3
    assert cells["table5/not_a_game"].value == 1


def test_an_empty_funnel_file_is_an_empty_table(tmp_path: Path) -> None:
    (tmp_path / "funnel.csv").write_text("")
    assert read_funnel(tmp_path / "funnel.csv").empty


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("total remaining", "total left"), "lacks column(s) total remaining"),
        (lambda t: t.replace("stage,", "step,", 1), "lacks column(s) stage"),
        (lambda t: t.replace(",4\n", ",-4\n", 1), "'total remaining' holds a value"),
        (lambda t: t.replace(",4\n", ",four\n", 1), "'total remaining' holds a value"),
    ],
)
def test_a_malformed_funnel_names_its_file(tmp_path: Path, edit, message: str) -> None:
    path = written_funnel(tmp_path)
    text = path.read_text()
    changed = edit(text)
    assert changed != text
    path.write_text(changed)
    with pytest.raises(RecordError, match=re.escape(message)) as caught:
        read_funnel(path)
    assert caught.value.file == path
