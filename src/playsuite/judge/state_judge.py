"""The ``state`` judge: milestones verified from probe values recorded in the trace.

Games may declare probes (catalog ``probes``: a JavaScript expression for browser games, an
attribute path for pygame games); the harness stores their values in every trace step as
``"probes": {"score": 12, "level": 1, ...}`` (``null`` when the expression failed that step).
A probe's *name* says what it measures. Recognised names (case-insensitive; ``NAME_suffix``
counts as ``NAME``, e.g. ``score_p1``):

==========================================  =================================================
probe name                                  milestone it verifies
==========================================  =================================================
``score points coins gold gems resource*``  numeric increase: ``score_or_resource_increased``
``level area room stage world map``         any change: ``new_area_or_level_reached``;
                                            a numeric increase of ``level stage world`` also:
                                            ``checkpoint_or_objective_completed``
``checkpoint objective objectives``         increase / becomes true: ``checkpoint_...``
``lives``                                   each decrease: one death
``deaths``                                  increase by n: n deaths
``game_over``                               each false -> true: one game over
``won win victory completed``               true at any step: ``win_or_completion_screen``
==========================================  =================================================

The death count is the largest of the three death sources (they usually describe the same
events). Fields no probe speaks for are reported in ``unobserved``. Values are compared between
consecutive steps where both are present; the evidence time is the later step's ``t_game``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from playsuite.judge.episode import Episode, Step
from playsuite.judge.result import NO_PROBES, empty_milestones, failed, judgement
from playsuite.judge.schema import BOOLEAN_FIELDS, COUNT_FIELDS

ROLES: dict[str, tuple[str, ...]] = {
    "score": ("score", "points", "coins", "gold", "gems", "resource", "resources"),
    "area": ("level", "area", "room", "stage", "world", "map"),
    "checkpoint": ("checkpoint", "objective", "objectives"),
    "lives": ("lives",),
    "deaths": ("deaths",),
    "game_over": ("game_over",),
    "won": ("won", "win", "victory", "completed"),
}
#: Area names whose numeric increase means the previous stage was completed.
STAGE_NAMES = ("level", "stage", "world")


def probe_role(name: str) -> str | None:
    """The role of a probe from its name, or ``None`` when the name is not recognised."""
    low = name.lower()
    for role, names in ROLES.items():
        if any(low == n or low.startswith(n + "_") for n in names):
            return role
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


@dataclass
class ProbeFindings:
    """Milestone fields derived from probes, their evidence, and which fields probes cover."""

    fields: dict[str, Any] = field(default_factory=dict)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    observed: set[str] = field(default_factory=set)
    probes: list[str] = field(default_factory=list)

    def _flag(self, name: str, t: float, text: str) -> None:
        if not self.fields.get(name):
            self.fields[name] = True
            self.evidence.append({"t_sec": t, "field": name, "on_screen": text})


def _series(steps: Sequence[Step], name: str) -> list[tuple[float, Any]]:
    return [(s.t_game, s.probes[name]) for s in steps if s.probes.get(name) is not None]


def _is_stage(name: str) -> bool:
    return name.lower().split("_")[0] in STAGE_NAMES


def _covers(name: str, role: str) -> set[str]:
    """The milestone fields a probe of this name and role can confirm or rule out."""
    if role == "area":
        extra = {"checkpoint_or_objective_completed"} if _is_stage(name) else set()
        return {"new_area_or_level_reached", *extra}
    return {
        "score": {"score_or_resource_increased"},
        "checkpoint": {"checkpoint_or_objective_completed"},
        "lives": {"death_or_game_over_count"},
        "deaths": {"death_or_game_over_count"},
        "game_over": {"death_or_game_over_count"},
        "won": {"win_or_completion_screen"},
    }[role]


def _deaths(role: str, before: Any, after: Any) -> int:
    """Deaths between two consecutive values of a ``lives``/``deaths``/``game_over`` probe."""
    a, b = _number(before), _number(after)
    if role == "lives" and a is not None and b is not None and b < a:
        return 1
    if role == "deaths" and a is not None and b is not None and b > a:
        return int(b - a)
    if role == "game_over" and after and not before:
        return 1
    return 0


def probe_findings(steps: Sequence[Step]) -> ProbeFindings:
    """Everything the recorded probe values verify (empty findings when there are none)."""
    out = ProbeFindings()
    names = sorted({n for s in steps for n in s.probes})
    out.probes = names
    deaths = {"lives": 0, "deaths": 0, "game_over": 0}
    first_death: dict[str, dict[str, Any]] = {}
    for name in names:
        role = probe_role(name)
        if role is None:
            continue
        out.observed.update(_covers(name, role))
        series = _series(steps, name)
        if role == "won":
            for t, value in series:
                if value:
                    out._flag("win_or_completion_screen", t, f"probe {name} = {value!r}")
                    break
        for (_, before), (t, after) in itertools.pairwise(series):
            a, b = _number(before), _number(after)
            both = a is not None and b is not None
            text = f"probe {name} {before!r} -> {after!r}"
            if role == "score" and both and b > a:
                out._flag("score_or_resource_increased", t, text)
            elif role == "area" and after != before:
                out._flag("new_area_or_level_reached", t, text)
                if _is_stage(name) and both and b > a:
                    out._flag("checkpoint_or_objective_completed", t, text)
            elif role == "checkpoint" and after != before and ((both and b > a) or after is True):
                out._flag("checkpoint_or_objective_completed", t, text)
            elif role in deaths:
                n = _deaths(role, before, after)
                if n:
                    deaths[role] += n
                    first_death.setdefault(
                        role, {"t_sec": t, "field": "death_or_game_over_count", "on_screen": text}
                    )
    if "death_or_game_over_count" in out.observed:
        best = max(deaths, key=lambda r: deaths[r])
        out.fields["death_or_game_over_count"] = deaths[best]
        if deaths[best]:
            out.evidence.append(first_death[best])
    return out


def judge_state(episode: Episode, name: str = "state") -> dict[str, Any]:
    """Judge an episode from its probe values; ``no_probes`` when the trace carries none."""
    findings = probe_findings(episode.steps)
    if not findings.probes:
        return failed(name, NO_PROBES, "the trace records no probe values")
    m = empty_milestones()
    m.update(findings.fields)
    m["milestones"] = findings.evidence
    unobserved = [f for f in (*BOOLEAN_FIELDS, *COUNT_FIELDS) if f not in findings.observed]
    unrecognised = [p for p in findings.probes if probe_role(p) is None]
    return judgement(
        m, name, unobserved=unobserved, probes=findings.probes, ignored_probes=unrecognised
    )
