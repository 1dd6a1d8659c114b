"""The conformance table (``results/conformance/{corpus}.tsv``): one row per game put through the
runtime contract (:mod:`playsuite.harness.conformance`), and its summary.

Per-game verdicts are JSON beside the acquired game (``results/games/{id}/conformance.json``,
written by the check job); this module owns the table that gathers them, so the benchmark, the
docs and any later stage read one shape.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from playsuite.records.tsv import read_rows, write_rows

VERSION = 1
CHECK_NAMES = ("launch", "frozen", "slice", "video", "stop", "input")
COLUMNS = ("game", "runtime", "ok", "failed_check", "reason", "seconds", *CHECK_NAMES)


def table_row(verdict: Mapping[str, Any]) -> dict[str, Any]:
    """One table row from a game's verdict (``ConformanceReport.to_dict``)."""
    checks = {c["name"]: c["ok"] for c in verdict.get("checks", [])}
    cell = {True: "pass", False: "fail", None: "-"}
    return {
        "game": verdict["game"],
        "runtime": verdict["runtime"],
        "ok": "yes" if verdict["ok"] else "no",
        "failed_check": verdict.get("failed_check") or "",
        "reason": verdict.get("reason") or "",
        "seconds": verdict.get("seconds", 0.0),
        **{name: cell[checks.get(name)] for name in CHECK_NAMES},
    }


def write_table(path: str | os.PathLike[str], verdicts: Iterable[Mapping[str, Any]]) -> None:
    rows = sorted((table_row(v) for v in verdicts), key=lambda r: (r["runtime"], r["game"]))
    write_rows(path, COLUMNS, rows, VERSION)


def read_table(path: str | os.PathLike[str]) -> list[dict[str, str]]:
    return read_rows(path, COLUMNS, VERSION, "conformance table")


def summary(rows: Iterable[Mapping[str, str]]) -> str:
    """Pass counts per runtime and the failure reasons, counted (Markdown)."""
    rows = list(rows)
    lines = ["| runtime | games | pass | fail |", "|---|---|---|---|"]
    for runtime in sorted({r["runtime"] for r in rows}):
        mine = [r for r in rows if r["runtime"] == runtime]
        passed = sum(r["ok"] == "yes" for r in mine)
        lines.append(f"| {runtime} | {len(mine)} | {passed} | {len(mine) - passed} |")
    passed = sum(r["ok"] == "yes" for r in rows)
    lines.append(f"| all | {len(rows)} | {passed} | {len(rows) - passed} |")
    reasons = Counter(f"{r['failed_check']}: {r['reason'][:120]}" for r in rows if r["ok"] != "yes")
    if reasons:
        lines += ["", "| failure | games |", "|---|---|"]
        lines += [f"| {why} | {n} |" for why, n in reasons.most_common()]
    return "\n".join(lines) + "\n"
