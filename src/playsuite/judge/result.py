"""The judge output file (DESIGN.md "Judge output") and its failure form.

A judgement is the milestone object plus ``level`` (always computed here from the milestones with
the Table 9 rule, never taken from a judge), ``judge`` and ``status: "ok"``. A judge that could not
produce a valid answer writes ``status: "failed"`` with the error and no level: a failure must
never read as a level-0 episode.
"""

from __future__ import annotations

import os
from typing import Any

from playsuite.files import read_json, write_json_atomic
from playsuite.judge.levels import progress_level
from playsuite.judge.schema import (
    BOOLEAN_FIELDS,
    COUNT_FIELDS,
    milestone_schema,
    validate_milestones,
)

#: Judgement statuses: ``ok`` has a level; the others record why there is none.
OK = "ok"
FAILED = "failed"  # the judge ran but gave no valid answer
NO_VIDEO = "no_video"  # the episode has no video to judge (e.g. the game never launched)
NO_PROBES = "no_probes"  # the state judge found no probe values in the trace
NO_EPISODE = "no_episode"  # the episode directory is missing or unreadable


def empty_milestones() -> dict[str, Any]:
    """Every field false / 0, no evidence: the starting point of the rule-based judges."""
    out: dict[str, Any] = dict.fromkeys(BOOLEAN_FIELDS, False)
    out.update(dict.fromkeys(COUNT_FIELDS, 0))
    out["milestones"] = []
    return out


def judgement(milestones: dict[str, Any], judge: str, **extra: Any) -> dict[str, Any]:
    """Validated milestones + level + judge + status ``ok`` (+ ``extra`` keys after them)."""
    fields = {k: milestones[k] for k in milestone_schema()["properties"] if k in milestones}
    fields["milestones"] = sorted(fields.get("milestones", []), key=lambda m: m["t_sec"])
    validate_milestones(fields)
    return {**fields, "level": progress_level(fields), "judge": judge, "status": OK, **extra}


def failed(judge: str, status: str, error: str, **extra: Any) -> dict[str, Any]:
    """A judgement without a level: ``status`` says why (``failed``, ``no_video``...)."""
    if status == OK:
        raise ValueError("a failed judgement cannot have status 'ok'")
    return {"judge": judge, "status": status, "error": error, **extra}


def write_judgement(path: str | os.PathLike[str], obj: dict[str, Any]) -> None:
    write_json_atomic(path, obj)


def read_judgement(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a judgement file; an ``ok`` one is re-validated and its level checked."""
    obj = read_json(path)
    if not isinstance(obj, dict) or "status" not in obj or "judge" not in obj:
        raise ValueError(f"{path}: not a judgement (needs 'judge' and 'status')")
    if obj["status"] == OK:
        validate_milestones(obj)
        if obj.get("level") != progress_level(obj):
            raise ValueError(f"{path}: level {obj.get('level')} does not follow its milestones")
    return obj
