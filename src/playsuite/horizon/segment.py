"""Action-aware segmentation (GameHorizon's first stage) and the bottom-up merge's partition.

GameHorizon cuts a recording where its action stream changes rather than where pixels change:
consecutive inputs of one sustained event (a held direction, a camera sweep, idling) stay in one
clip, while each discrete event (a key tap, a click) starts a new one. Our traces already hold
canonical actions, so the semantic mapping of raw inputs is the action itself; each trace line
gets one primitive label (:func:`step_label`), and a boundary is *wanted* between two lines
whose labels differ or when the second is a discrete event.

The same duration-bounded partition then serves every level (:func:`partition`): items with
durations and, between neighbours, a vote saying whether they belong together (the labels at
level 1, the VLM's merge decisions at levels 2 and 3). A dynamic programme picks the grouping
that keeps each group's duration inside the level's range and otherwise disagrees with the
fewest votes, as GameHorizon enforces its ranges with dynamic programming.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playsuite.actions.canonical import ActionError, action_from_dict
from playsuite.actions.grammar import format_action

#: Weight of a duration outside its range against one disagreeing vote: ranges come first.
RANGE_WEIGHT = 1000.0
#: What a line whose actions send nothing (waits, unparseable answers) reads as.
IDLE = "idle"


def action_text(actions: Sequence[Mapping[str, Any]]) -> str:
    """A trace line's actions in the standard grammar (``wait`` when none reaches the game)."""
    tokens = []
    for raw in actions:
        try:
            action = action_from_dict(raw)
        except ActionError:
            continue
        if action.kind in ("wait", "invalid"):
            continue
        tokens.append(format_action(action))
    return " ".join(tokens) or "wait"


def step_label(actions: Sequence[Mapping[str, Any]]) -> str:
    """The primitive label of a trace line: ``idle``; ``sustained:...`` for held keys and
    relative (camera) moves, which continue an event; ``discrete:...`` for taps, clicks, scrolls
    and pointer jumps, which each begin one. With several actions, a discrete one wins (the
    priority rule: it is the event that changes the game)."""
    held: list[str] = []
    discrete: list[str] = []
    for raw in actions:
        kind = raw.get("kind")
        if kind == "hold":
            held.append("+".join(raw.get("keys") or ()))
        elif kind == "move" and "dx" in raw:
            held.append("camera")
        elif kind in ("key", "click", "scroll", "move"):
            discrete.append(str(kind))
    if discrete:
        return "discrete:" + ",".join(discrete)
    if held:
        return "sustained:" + ",".join(sorted(set(held)))
    return IDLE


def same_event(label_a: str, label_b: str) -> bool:
    """Whether the line labelled ``label_b`` continues the event of the one before it."""
    return label_a == label_b and not label_b.startswith("discrete:")


def partition(
    durations: Sequence[float], together: Sequence[bool], low: float, high: float
) -> list[tuple[int, int]]:
    """Contiguous groups ``[(start, end), ...]`` of ``len(durations)`` items.

    ``together[i]`` is the vote for items ``i`` and ``i + 1`` sharing a group. A group's cost is
    :data:`RANGE_WEIGHT` times how far its total duration lies outside ``[low, high]`` (relative
    to the bound), plus one for each vote it breaks; the cheapest grouping wins (ties: fewer
    groups, then earlier cuts), so a whole episode shorter than ``low`` is one group.
    """
    n = len(durations)
    if n == 0:
        return []
    if len(together) != n - 1:
        raise ValueError(f"{n} items need {n - 1} votes, got {len(together)}")
    if low < 0 or high < low or high <= 0:
        raise ValueError(f"bad duration range [{low}, {high}]")
    prefix = [0.0]
    for d in durations:
        prefix.append(prefix[-1] + max(0.0, float(d)))
    apart = [0] * n  # apart[i]: votes *against* staying together inside items [0, i]
    for i in range(1, n):
        apart[i] = apart[i - 1] + (0 if together[i - 1] else 1)

    def range_cost(total: float) -> float:
        if total < low:
            return RANGE_WEIGHT * (low - total) / max(low, 1e-9)
        if total > high:
            return RANGE_WEIGHT * (total - high) / high
        return 0.0

    inf = float("inf")
    best: list[tuple[float, int]] = [(0.0, 0)] + [(inf, 0)] * n  # (cost, groups)
    cut_at = [0] * (n + 1)
    for end in range(1, n + 1):
        for start in range(end):
            inside_apart = apart[end - 1] - apart[start]  # votes to split, kept together
            boundary = 0 if start == 0 or not together[start - 1] else 1  # a cut voted against
            cost = best[start][0] + range_cost(prefix[end] - prefix[start]) + inside_apart
            cost += boundary
            key = (round(cost, 9), best[start][1] + 1)
            if key < (round(best[end][0], 9), best[end][1]):
                best[end] = (cost, best[start][1] + 1)
                cut_at[end] = start
    groups = []
    end = n
    while end > 0:
        groups.append((cut_at[end], end))
        end = cut_at[end]
    return groups[::-1]


@dataclass(frozen=True)
class Clip:
    """A run of trace lines ``[start, end)`` covering game time ``[t_start, t_end)``."""

    start: int
    end: int
    t_start: float
    t_end: float
    label: str
    actions: tuple[str, ...]


def step_durations(
    times: Sequence[float], t_end: float | None, step_s: float | None
) -> list[float]:
    """How long each trace line lasted: until the next one, and the last until ``t_end`` (the
    episode's game time) or for ``step_s`` (its step length) or the median step."""
    out = [max(0.0, b - a) for a, b in itertools.pairwise(times)]
    if times:
        last = None
        if t_end is not None and t_end > times[-1]:
            last = t_end - times[-1]
        elif step_s:
            last = step_s
        elif out:
            last = sorted(out)[len(out) // 2]
        out.append(last if last is not None else 1.0)
    return out


def segment_operations(
    steps: Sequence[Mapping[str, Any]],
    low_s: float,
    high_s: float,
    t_end: float | None = None,
    step_s: float | None = None,
) -> list[Clip]:
    """The short-horizon clips of a trace (its lines in game-time order)."""
    times = [float(s["t_game"]) for s in steps]
    labels = [step_label(s.get("actions") or ()) for s in steps]
    durations = step_durations(times, t_end, step_s)
    votes = [same_event(a, b) for a, b in itertools.pairwise(labels)]
    clips = []
    for start, end in partition(durations, votes, low_s, high_s):
        group = labels[start:end]
        label = next((g for g in group if g.startswith("discrete:")), group[0])
        clips.append(
            Clip(
                start=start,
                end=end,
                t_start=times[start],
                t_end=times[start] + sum(durations[start:end]),
                label=label,
                actions=tuple(action_text(s.get("actions") or ()) for s in steps[start:end]),
            )
        )
    return clips


def sample_indices(
    t_start: float, t_end: float, fps: float, available: int, most: int
) -> list[int]:
    """At most ``most`` indices of frames sampled at ``fps`` inside ``[t_start, t_end)``, spread
    evenly; the frame shown at ``t_start`` when none falls inside (a clip shorter than a
    sample period). Indices stay below ``available``."""
    if available < 1 or most < 1:
        return []
    first = int(t_start * fps + 1e-9)
    inside = [
        k for k in range(first, available) if k / fps < t_end - 1e-9 and k / fps >= t_start - 1e-9
    ]
    if not inside:
        return [min(first, available - 1)]
    if len(inside) <= most:
        return inside
    if most == 1:
        return [inside[len(inside) // 2]]
    step = (len(inside) - 1) / (most - 1)
    return sorted({inside[round(i * step)] for i in range(most)})
