"""The lanes of `make test` (scripts/run_tests.sh) run every test.

The engine and Slurm lanes collect only their own folders (collecting all 1,600 tests takes each
pytest session about 12 CPU-s on two busy cores), and the other lanes leave the ``engine`` and
``slurm`` markers out. A test marked so anywhere else would run in no lane: this keeps them home.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
#: marker -> the folder whose lane runs it (scripts/run_tests.sh)
LANE_FOLDERS = {"engine": TESTS / "engine", "slurm": TESTS / "cluster"}
LANES = TESTS.parent / "scripts" / "run_tests.sh"


@pytest.mark.parametrize("marker", sorted(LANE_FOLDERS))
def test_a_lane_marker_is_used_only_in_its_lanes_folder(marker: str) -> None:
    used = re.compile(rf"\bmark\.{marker}\b")
    home = LANE_FOLDERS[marker]
    strays = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("*.py"))
        if path != Path(__file__) and home not in path.parents and used.search(path.read_text())
    ]
    assert not strays, f"tests marked {marker} outside {home.name}/ run in no lane: {strays}"
    assert any(used.search(p.read_text()) for p in home.rglob("test_*.py")), "no test is marked"


def test_the_lanes_collect_those_folders() -> None:
    script = LANES.read_text()
    assert 'session slurm "$slurm_log" tests/cluster -m slurm' in script
    assert 'session engine "$engine_log" tests/engine -m "engine and not slurm"' in script
