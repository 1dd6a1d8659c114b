"""The registry corpus (config/registry.yaml): Debian and PyPI games the conformance survey
passed, as a corpus table any run can name. Its rows must start as the survey started them."""

from __future__ import annotations

from pathlib import Path

import yaml

from playsuite.config import validate
from playsuite.corpus import load_corpus
from playsuite.judge.tasks import game_tasks

ROOT = Path(__file__).resolve().parents[2]


def test_the_registry_corpus_is_a_valid_table_of_registry_games_with_their_entries() -> None:
    overlay = yaml.safe_load((ROOT / "config/registry.yaml").read_text())
    base = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    merged = {**base, "corpora": {**base["corpora"], **overlay["corpora"]}}
    validate(merged, "config")
    rows = load_corpus(ROOT / overlay["corpora"]["registry"]["table"])
    assert len(rows) >= 60 and len({r.id for r in rows}) == len(rows)
    assert {r.source for r in rows} == {"debian", "pypi"}
    assert {r.runtime for r in rows} <= {"native", "pygame"}
    for row in rows:
        assert row.package and row.version and row.entry, row.id
        assert row.id.startswith(f"{row.source}-")
        # A native Debian game starts at its own installed launcher (no /game-relative path).
        assert row.runtime != "native" or row.entry.startswith("/usr/games/"), row


def test_registry_tasks_read_only_declared_probes_of_pygame_rows() -> None:
    """Tasks on registry rows (docs/catalog.md "Registry corpus"): each parses, names only probes
    its row declares, and sits on a pygame row (the runtime whose probes read game state)."""
    rows = load_corpus(ROOT / "config/corpora/registry.tsv")
    with_tasks = [r for r in rows if r.tasks]
    assert len(with_tasks) >= 4
    for row in with_tasks:
        assert row.runtime == "pygame", row.id
        tasks = game_tasks(row)
        assert tasks, row.id
        for task in tasks:
            assert task.probe_names and task.probe_names <= set(row.probes), (row.id, task.name)
            assert task.baseline is not None and task.target != task.baseline
        # a game-over probe lets reset-on-fail see a terminal failure
        assert "game_over" in row.probes, row.id
