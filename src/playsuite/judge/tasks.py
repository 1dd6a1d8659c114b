"""State-verified task outcomes: GameWorld's progress and success from recorded probe values.

A corpus row may declare tasks (schema ``task``): a ``probe`` expression over the row's probe
names, an optional baseline ``b`` and a target ``tau``. At each step the expression is evaluated
on that step's recorded probe values (``true``/``false`` count as 1/0); a step where a probe it
reads is missing or ``null``, or where the arithmetic fails, has no value. With ``b`` the
baseline (when not given: the first value the episode recorded) and ``q`` the values seen:

* increasing task (``tau > b``): progress = clip((max q - b) / (tau - b), 0, 1), success when
  max q >= tau;
* decreasing task (``tau < b``): the same with min q, success when min q <= tau.

GameWorld's runs start from the game's initial state, so its ``b`` is the value at the start;
ours is the first value recorded, which is the same when the probe is readable from the first
step.

An episode played with ``reset_on_fail`` (playsuite.harness.protocol) holds several launches of
the game, *attempts*. Each is measured on its own, its baseline being its own first value when
the task gives none, and with the probes read when its game was over counted as its last
observation; the episode's outcome is its best attempt (the highest progress; a success if any
attempt succeeded), as GameWorld keeps the best progress across its resets. An episode whose
trace never names a probe the expression reads (a runtime without probes,
an episode recorded before the row declared them) is *unmeasured*: progress and success are
``None`` and the tables count it apart. An episode that names the probes but never gives the
expression a value (say the agent never left the menu) made no progress: 0, not a success.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playsuite.config import ConfigError
from playsuite.corpus import GameEntry, task_probe_names
from playsuite.judge.episode import Episode, Step

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}

Value = float | None


class _Missing(Exception):
    """A probe the expression reads has no value at this step."""


@dataclass(frozen=True)
class Task:
    """One task of a corpus row (schema ``task``)."""

    game: str
    name: str
    instruction: str
    probe: str
    target: float
    baseline: float | None = None

    @classmethod
    def of(cls, game: str, row: Mapping[str, Any]) -> Task:
        task = cls(
            game=game,
            name=str(row["name"]),
            instruction=str(row["instruction"]),
            probe=str(row["probe"]),
            target=float(row["target"]),
            baseline=None if row.get("baseline") is None else float(row["baseline"]),
        )
        _check_nodes(ast.parse(task.probe, mode="eval"), task.probe)
        return task

    @property
    def probe_names(self) -> set[str]:
        return task_probe_names(self.probe)

    def value(self, probes: Mapping[str, Any]) -> Value:
        """The expression's value on one step's probe values, or None when it has none."""
        try:
            out = _eval(_parse(self.probe).body, probes)
        except (_Missing, ArithmeticError, TypeError):
            return None
        out = float(out)
        return out if math.isfinite(out) else None


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> ast.Expression:
    return ast.parse(text, mode="eval")


def game_tasks(game: GameEntry) -> list[Task]:
    """The tasks a corpus row declares, checked."""
    return [Task.of(game.id, row) for row in game.tasks]


_ALLOWED = (
    ast.Expression,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Name,
    ast.Constant,
    ast.Load,
    ast.And,
    ast.Or,
    ast.Not,
    ast.USub,
    ast.UAdd,
    *_BINARY,
    *_COMPARE,
)


def _check_nodes(tree: ast.AST, text: str) -> None:
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise ConfigError(
                f"task probe {text!r}: {type(node).__name__} is not allowed (arithmetic, "
                "comparisons, and/or/not and x if c else y over probe names and numbers)"
            )
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            raise ConfigError(f"task probe {text!r}: only numbers and booleans are constants")


def _number(value: Any) -> float:
    if value is None or isinstance(value, str | list | dict):
        raise _Missing
    return float(value)


def _eval(node: ast.AST, probes: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return _number(probes.get(node.id))
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_eval(node.left, probes), _eval(node.right, probes))
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, probes)
        return (
            not operand
            if isinstance(node.op, ast.Not)
            else (-operand if isinstance(node.op, ast.USub) else +operand)
        )
    if isinstance(node, ast.BoolOp):
        values = [_eval(v, probes) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, probes)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _eval(right_node, probes)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        branch = node.body if _eval(node.test, probes) else node.orelse
        return _eval(branch, probes)
    raise TypeError(type(node).__name__)


@dataclass(frozen=True)
class TaskOutcome:
    """A task's result in one episode; progress and success are None when unmeasured."""

    task: str
    progress: float | None
    success: bool | None
    baseline: float | None
    best: float | None
    observed: int

    @property
    def measured(self) -> bool:
        return self.progress is not None


def task_outcome(task: Task, steps: Sequence[Step]) -> TaskOutcome:
    """GameWorld's progress and success of ``task`` over an episode's steps (module docstring):
    the best of its attempts."""
    attempts: dict[int, list[Mapping[str, Any]]] = {}
    for step in steps:
        seen = attempts.setdefault(step.attempt, [])
        seen.append(step.probes)
        if step.end_probes is not None:
            seen.append(step.end_probes)
    outcomes = [_attempt_outcome(task, seen) for _, seen in sorted(attempts.items())]
    if not outcomes:
        return TaskOutcome(task.name, None, None, task.baseline, None, 0)
    measured = [o for o in outcomes if o.measured]
    if not measured:
        return outcomes[0]
    best = max(measured, key=lambda o: (bool(o.success), o.progress))
    observed = sum(o.observed for o in measured)
    return dataclasses.replace(best, observed=observed)


def _attempt_outcome(task: Task, observations: Sequence[Mapping[str, Any]]) -> TaskOutcome:
    """Progress and success over one launch of the game's probe values, in order."""
    recorded = [p for p in observations if task.probe_names <= set(p)]
    if not recorded:
        return TaskOutcome(task.name, None, None, task.baseline, None, 0)
    values = [v for v in (task.value(p) for p in recorded) if v is not None]
    baseline = task.baseline if task.baseline is not None else (values[0] if values else None)
    if not values or baseline is None:
        return TaskOutcome(task.name, 0.0, False, baseline, None, 0)
    span = task.target - baseline
    best = max(values) if span >= 0 else min(values)
    success = best >= task.target if span >= 0 else best <= task.target
    # span 0: the first value already is the target.
    progress = 1.0 if span == 0 else min(max((best - baseline) / span, 0.0), 1.0)
    return TaskOutcome(task.name, progress, bool(success), baseline, best, len(values))


def episode_outcomes(episode: Episode, tasks: Sequence[Task]) -> list[TaskOutcome]:
    """Every task's outcome in one episode."""
    return [task_outcome(task, episode.steps) for task in tasks]
