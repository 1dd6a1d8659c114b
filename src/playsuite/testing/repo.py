"""A working copy of the repository for tests that run the workflow on it.

Workflow tests run Snakemake in a copy so that their ``results/`` and ``.snakemake/`` never touch
the checkout. The copy leaves out what is large, machine-local or rebuilt anyway: the two virtual
environments (the copy runs with this checkout's interpreter), results, Snakemake's state, git,
build metadata and tool caches. Everything else is copied, symlinks followed, as by
:func:`shutil.copytree`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

#: Names (glob patterns, at any depth) the copy leaves out.
LEFT_OUT = (
    ".venv",
    ".venv-engine",
    "results",
    ".snakemake",
    ".git",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".ruff_cache",
    ".import_linter_cache",
    ".gl",
    ".whl",
)


def copy_repo(source: Path, dest: Path) -> Path:
    """Copy the repository at ``source`` to ``dest`` (which may exist) less :data:`LEFT_OUT`;
    returns ``dest``."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(*LEFT_OUT), dirs_exist_ok=True)
    return dest
