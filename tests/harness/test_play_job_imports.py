"""A play job's process starts without the analysis libraries.

Every play shard, worker and `playsuite play` is a fresh Python process; pandas (and the pyarrow
it loads) cost each about a second of CPU, which a whole campaign pays thousands of times. The
harness only writes records, and the records' readers that need pandas import it themselves.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

ANALYSIS_LIBRARIES = ("pandas", "pyarrow", "matplotlib", "scipy")


@pytest.mark.parametrize("module", ["playsuite.harness.node", "playsuite.harness.cli"])
def test_the_play_path_imports_no_analysis_library(module: str) -> None:
    check = (
        f"import sys, {module}; "
        f"print(','.join(m for m in {ANALYSIS_LIBRARIES!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"{module} loads {done.stdout.strip()}"


def test_the_cost_record_reader_still_reads(tmp_path) -> None:
    from playsuite.records.costs import read_cost_folder

    assert list(read_cost_folder(tmp_path / "absent").columns)  # pandas, imported on use
