"""A non-editable install finds its configuration: the wheel carries ``config/`` inside the
package (``playsuite/_config``), and relative workflow paths resolve into that copy."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PROBE = """
import playsuite.config as c
from playsuite.harness.gym_registry import default_table, repo_root
from playsuite.registry import load_registry
from playsuite.agents.prompts import available_templates
print(c.installed_copy(c.config_dir()))
print(len(load_registry().presets) > 0, "standard" in available_templates())
print(default_table().is_file(), repo_root())
"""


def test_the_source_trees_config_link_points_at_the_checkouts_config() -> None:
    link = REPO / "src/playsuite/_config"
    assert link.is_symlink() and link.resolve() == (REPO / "config").resolve()


def test_an_installed_copy_reads_its_packaged_config_from_any_directory(tmp_path: Path) -> None:
    # The layout a wheel installs: the package with its configuration copied in, not linked.
    site = tmp_path / "site"
    shutil.copytree(REPO / "src/playsuite", site / "playsuite", symlinks=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=elsewhere,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert out[0] == "True"
    assert out[1] == "True True"
    assert out[2] == f"True {elsewhere}"
