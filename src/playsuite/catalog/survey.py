"""The registry survey's table: every candidate a registry lists, with its outcome and date.

A survey corpus (``config/survey.yaml``, docs/catalog-survey.md) runs the ordinary catalog stages
over a whole registry: the metadata screen, the registry triage and, for every candidate that is
left, the runtime conformance check (rule ``catalog_launch`` with ``check: conformance``). The
corpus's ``decisions.tsv`` says where each candidate left; this module turns it into the table a
reader of the survey wants: one row per candidate, ``admitted`` or the reason in a few words
(``not a game``, ``needs network``, ``input check failed``, ...), the detail, and the date the
outcome was decided (the day of the check for a launched candidate, else the day the index was
read).
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from playsuite.catalog.filters import Decision
from playsuite.catalog.ingest import RawGame, slug
from playsuite.files import atomic_open

ADMITTED = "admitted"

#: The outcome of a candidate that left at a screening stage, in the survey's words.
STAGE_OUTCOMES = {
    "non_free": "not free",
    "too_big": "too big",
    "not_a_game": "not a game",
    "server": "server, not a game",
    "text_mode": "text mode",
    "no_gui": "no GUI",
    "network": "needs network",
    "multiplayer_only": "multiplayer only",
    "gamepad_required": "needs a gamepad",
    "drag_only": "dragging-only controls",
    "triage": "unreadable or quarantined",
}


@dataclass(frozen=True)
class SurveyRow:
    """One candidate of a registry and what became of it."""

    candidate: str  # the registry's own name (Debian package, PyPI project)
    id: str  # the catalog id
    runtime: str
    version: str
    outcome: str  # ADMITTED, or the reason in a few words
    stage: str  # the funnel stage it left at ("" when admitted)
    detail: str  # the decision's reason, in one line
    checked: str  # UTC date the outcome was decided (YYYY-MM-DD)


SURVEY_COLUMNS = tuple(f.name for f in fields(SurveyRow))


def launch_outcome(reason: str, result: Mapping[str, Any] | None) -> str:
    """A launch-stage exclusion in a few words: the failed check, else what the reason says."""
    if result is not None and result.get("status") == "harness_error":
        return "harness error"
    if "no entry point known" in reason:
        return "no single entry"
    if reason.startswith("manual:"):
        return "excluded by hand"
    if "acquisition failed" in reason:
        return "not installable"
    status = str((result or {}).get("status") or "")
    if status.endswith("check failed"):
        return status
    if status and status != "ok":
        return f"launch check failed ({status})"
    return "launch check failed"


def outcome_of(decision: Decision, result: Mapping[str, Any] | None) -> str:
    """``admitted``, or why not, for a candidate's final decision and its check's result."""
    if decision.kept:
        return ADMITTED
    if decision.stage == "launch":
        return launch_outcome(decision.reason, result)
    return STAGE_OUTCOMES.get(decision.stage, decision.stage.replace("_", " "))


def survey_rows(
    records: Sequence[RawGame],
    decisions: Mapping[str, Decision],
    results: Mapping[str, Mapping[str, Any]],
    read_on: str,
) -> list[SurveyRow]:
    """The survey table of one registry corpus, in record order. ``results``: the check
    results by game id (rule ``catalog_launch``); ``read_on``: the day the index was read."""
    rows = []
    for game in records:
        decision = decisions[game.id]
        result = results.get(game.id)
        checked = str((result or {}).get("checked") or "") if result is not None else ""
        rows.append(
            SurveyRow(
                candidate=game.source_id,
                id=game.id,
                runtime=game.runtime,
                version=game.version,
                outcome=outcome_of(decision, result),
                stage=decision.stage,
                detail=" ".join(decision.reason.split()),
                checked=checked or read_on,
            )
        )
    return rows


def left_out_rows(
    left_out: Iterable[Mapping[str, str]], source: str, read_on: str
) -> list[SurveyRow]:
    """Rows of the candidates the ingest looked up and did not make records of (a registry
    ingest's ``left_out``: the PyPI or npm snapshot's, each with ``name``, ``version``,
    ``outcome`` and ``detail``, and the catalog ``id`` where the source gives one): they left
    at stage ``ingest`` on the day the index was read."""
    return [
        SurveyRow(
            candidate=item["name"],
            id=item.get("id") or slug(f"{source}-{item['name']}"),
            runtime="",
            version=item.get("version", ""),
            outcome=item["outcome"],
            stage="ingest",
            detail=item.get("detail", ""),
            checked=read_on,
        )
        for item in left_out
    ]


def write_survey(rows: Iterable[SurveyRow], path: str | Path) -> None:
    with atomic_open(path) as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(SURVEY_COLUMNS)
        writer.writerows(astuple(row) for row in rows)


def read_survey(path: str | Path) -> list[SurveyRow]:
    with open(path, encoding="utf-8", newline="") as fh:
        return [SurveyRow(**row) for row in csv.DictReader(fh, delimiter="\t")]


def survey_summary(rows: Sequence[SurveyRow], source: str) -> str:
    """Markdown: the outcomes counted, and the admitted games per runtime."""
    lines = [f"# Survey of {source}: {len(rows)} candidates", ""]
    admitted = Counter(r.runtime for r in rows if r.outcome == ADMITTED)
    lines += ["| runtime | admitted |", "|---|---:|"]
    lines += [f"| {runtime} | {n} |" for runtime, n in sorted(admitted.items())]
    lines += [f"| all | {sum(admitted.values())} |", ""]
    lines += ["| outcome | candidates |", "|---|---:|"]
    outcomes = Counter(r.outcome for r in rows)
    lines += [f"| {outcome} | {n} |" for outcome, n in outcomes.most_common()]
    return "\n".join(lines) + "\n"


def step_survey(
    records: str | Path,
    decisions: str | Path,
    snapshot: str | Path,
    launch_files: Iterable[str | Path],
    out_table: str | Path,
    out_summary: str | Path,
    source: str,
    excerpts: Iterable[str | Path] = (),
) -> list[SurveyRow]:
    """Rule ``survey_table``: the survey table and its summary from a corpus's decisions;
    ``excerpts``: the registry snapshots whose ``left_out`` candidates are rows too."""
    from playsuite.catalog.curate import read_decisions
    from playsuite.catalog.ingest import read_records
    from playsuite.files import read_json, write_text_atomic

    results = {}
    for path in launch_files:
        result = read_json(path)
        results[str(result["game"])] = result
    read_at = [s.get("read_at", "") for s in read_json(snapshot)["sources"].values()]
    read_on = min((r for r in read_at if r), default="")[:10]
    rows = survey_rows(read_records(records), read_decisions(decisions), results, read_on)
    for path in excerpts:
        rows += left_out_rows(read_json(path).get("left_out") or (), source, read_on)
    write_survey(rows, out_table)
    write_text_atomic(out_summary, survey_summary(rows, source))
    return rows
