"""Launch-check a whole corpus table and count what passed, per runtime, and why the rest failed.

The catalog's ``catalog_launch`` rule checks one candidate per job; this survey runs the same
check (:func:`playsuite.catalog.launch.launch_row`: acquire, then the runtimes' launch validator
in the sandbox) over the rows of a generated table in one process, sharing one games directory so
that Debian dependency closures are fetched once, and keeps one result file per game so that an
interrupted survey resumes where it stopped (``benchmarks/registry_corpus.py``).
"""

from __future__ import annotations

import re
import time
import traceback
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from playsuite.catalog.launch import DEFAULT_TIMEOUT_S, launch_row
from playsuite.corpus import GameEntry
from playsuite.files import read_json, write_json_atomic
from playsuite.runtimes.base import RunStatus


def survey(
    rows: Sequence[GameEntry],
    work_dir: str | Path,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    resume: bool = True,
    conformance: bool = False,
) -> Iterator[dict[str, Any]]:
    """One launch result per row (with ``wall_s``), in row order; written to
    ``{work_dir}/{results|conformance}/{id}.json`` and read back from there when ``resume`` and
    present. ``conformance``: the whole runtime contract instead of the launch check."""
    work = Path(work_dir)
    for row in rows:
        out = work / _folder(conformance) / f"{row.id}.json"
        if resume and out.is_file():
            yield read_json(out)
            continue
        started = time.monotonic()
        (work / "logs").mkdir(parents=True, exist_ok=True)
        suffix = ".conformance" if conformance else ""
        with open(work / "logs" / f"{row.id}{suffix}.log", "w", encoding="utf-8") as log:
            try:
                result = launch_row(
                    row,
                    [],
                    work / "runs" / row.id,
                    timeout_s=timeout_s,
                    log=log,
                    games_dir=work / "games",
                    conformance=conformance,
                )
            except Exception as exc:  # a harness bug on one game is that game's result
                log.write(traceback.format_exc())
                result = {
                    "game": row.id,
                    "ok": False,
                    "status": str(RunStatus.HARNESS_ERROR),
                    "error": f"{type(exc).__name__}: {exc}",
                }
        result = {**result, "runtime": row.runtime, "wall_s": round(time.monotonic() - started, 1)}
        write_json_atomic(out, result)
        yield result


def _folder(conformance: bool) -> str:
    return "conformance" if conformance else "results"


def checked(work_dir: str | Path, game_id: str, *, conformance: bool = False) -> bool:
    """Whether a survey under ``work_dir`` has a result for ``game_id``."""
    return (Path(work_dir) / _folder(conformance) / f"{game_id}.json").is_file()


def passed_launch(work_dir: str | Path, game_id: str) -> bool:
    """Whether the launch-check survey under ``work_dir`` passed ``game_id``."""
    path = Path(work_dir) / _folder(False) / f"{game_id}.json"
    return path.is_file() and passed(read_json(path))


def passed(result: dict[str, Any]) -> bool:
    return result.get("status") == "ok" and result.get("ok", True) is True


def passed_rows(rows: Sequence[GameEntry], results: Iterable[dict[str, Any]]) -> list[GameEntry]:
    """The rows whose result passed, in row order, each with the entry its check found (a
    Debian row's launcher is found at acquisition when the table's guess is not in the package)."""
    found = {r["game"]: r for r in results if passed(r)}
    return [
        GameEntry.from_dict({**row.to_dict(), "entry": found[row.id].get("entry") or row.entry})
        for row in rows
        if row.id in found
    ]


#: Fields a person declares on a row after the survey (read from the game's own state and checked
#: by hand, docs/catalog.md "Tasks on registry rows"); a regenerated row never has them.
HAND_FIELDS = ("probes", "tasks")


def merge_passed(
    earlier: Sequence[GameEntry], rows: Sequence[GameEntry], results: Iterable[dict[str, Any]]
) -> list[GameEntry]:
    """The table ``earlier`` updated with this survey: each row it checked is kept if it passed
    (with the :data:`HAND_FIELDS` the earlier table's row declared) and dropped if it failed;
    earlier rows it did not check (another registry's, another survey's) stay as they were.

    So writing a survey's passed rows over an existing table loses neither the rows of other
    surveys nor the probes and tasks declared on its rows by hand."""
    results = list(results)
    checked_ids = {r["game"] for r in results}
    new = {row.id: row for row in passed_rows(rows, results)}
    merged = []
    for row in earlier:
        if row.id not in checked_ids:
            merged.append(row)
        elif row.id in new:
            fresh = new.pop(row.id).to_dict()
            hand = {k: v for k, v in row.to_dict().items() if k in HAND_FIELDS and v}
            merged.append(GameEntry.from_dict(fresh | hand))
    return merged + list(new.values())


def failure_reason(result: dict[str, Any], width: int = 90) -> str:
    """A failure's reason with the game-specific parts (numbers, quoted names, paths, the log
    excerpt) blanked, so that failures of the same kind are counted together."""
    error = str(result.get("error", "")).split("; log:")[0]  # the game's own log differs
    text = f"{result.get('status', '?')}: {error}"
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"(/[\w.+-]+)+", "/…", text)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    return " ".join(text.split())[:width]


def summary(results: Iterable[dict[str, Any]]) -> str:
    """Pass counts per runtime and the failure reasons, counted, as printable lines."""
    results = list(results)
    lines = [f"{'runtime':10} {'checked':>7} {'passed':>6}"]
    runtimes = Counter(r.get("runtime", "?") for r in results)
    ok = Counter(r.get("runtime", "?") for r in results if passed(r))
    for runtime in sorted(runtimes):
        lines.append(f"{runtime:10} {runtimes[runtime]:7} {ok[runtime]:6}")
    lines.append(f"{'all':10} {len(results):7} {sum(ok.values()):6}")
    reasons = Counter(failure_reason(r) for r in results if not passed(r))
    if reasons:
        lines.append("")
        lines.append("failures (count, reason):")
        lines.extend(f"{count:5}  {reason}" for reason, count in reasons.most_common())
    return "\n".join(lines)
