"""The registry corpus (config/registry.yaml): Debian and PyPI games the conformance survey
passed, as a corpus table any run can name. Its rows must start as the survey started them."""

from __future__ import annotations

from pathlib import Path

import yaml

from playsuite.config import validate
from playsuite.corpus import load_corpus

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
