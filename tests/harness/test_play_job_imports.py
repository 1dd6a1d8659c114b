"""A play job's process starts without the analysis libraries.

Every play shard, worker and `playsuite play` is a fresh Python process; pandas (and the pyarrow
it loads) cost each about 0.6 CPU-s at start, which a whole campaign pays thousands of times. The
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
