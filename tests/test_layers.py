"""The layer contracts of pyproject.toml ([tool.importlinter]) hold: no upward import, no cycle
between layers, and no test double imported outside playsuite.testing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_layer_contracts_are_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run(
        [str(lint), "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "2 kept, 0 broken" in proc.stdout


def test_every_package_is_in_a_layer() -> None:
    """A new package must be placed in the contract, or nothing would check its imports."""
    text = (REPO / "pyproject.toml").read_text()
    src = REPO / "src" / "playsuite"
    names = {p.stem for p in src.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in src.iterdir() if (p / "__init__.py").exists()}
    unplaced = sorted(
        n
        for n in names - {"testing"}
        if f'"playsuite.{n}' not in text
        and f"playsuite.{n} " not in text
        and f"| playsuite.{n}" not in text
    )
    assert not unplaced, f"packages outside every layer of [tool.importlinter]: {unplaced}"
