"""The launch-validation block manifest: one row per game of an acquisition block.

Rule validate_launch_block writes it after every game of the block has its ``launch.json``
(written by :func:`playsuite.runtimes.validate.validate_launch`); it is the job's only declared
output, so a killed job leaves none and its rerun validates only the games still missing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from playsuite.records.tsv import read_rows, write_rows

VERSION = 1
COLUMNS = ("game", "ok", "error")


def write_block(path: str | os.PathLike[str], verdicts: Iterable[Mapping[str, Any]]) -> None:
    """Atomically write one row per verdict: the game, ``true``/``false`` and why it failed."""
    rows = [
        {"game": v["game"], "ok": str(bool(v.get("ok"))).lower(), "error": v.get("error") or ""}
        for v in verdicts
    ]
    write_rows(path, COLUMNS, rows, VERSION)


def read_block(path: str | os.PathLike[str]) -> list[dict[str, str]]:
    return read_rows(path, COLUMNS, VERSION, "launch block")
