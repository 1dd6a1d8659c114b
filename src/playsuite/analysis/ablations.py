"""Ablation definitions (``config/ablations/*.yaml``): one setting varied, all else held fixed.

An ablation is data, not code. A file names an *axis* (a dotted setting path of
``config/schemas/condition.schema.json``, or ``judge``), its values and the reference value,
the condition they are applied to (``base``), a preset selector and a seeded game subset per
corpus; the conditions to play follow from these (``k0-hz0.33-base`` with ``sampling.temperature``
0.7 is ``k0-hz0.33-base+sampling.temperature=0.7``). A file may list its conditions instead.
``kind`` picks the drawing: ``generic`` (playsuite.analysis.axis_effects) for any axis, or one
of the paper's figures (``history``, ``rate``, ``prompting``). The play stage plans the
episodes (playsuite.planning.play); the analysis restricts each figure to the games played
under every one of the ablation's conditions, so the two always agree.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from playsuite.config import (
    Condition,
    ConfigError,
    format_setting,
    load_validated,
    schema_default,
)
from playsuite.registry import Registry

KINDS = ("generic", "history", "rate", "prompting")
#: The axis of an ablation over judges: the same episodes, scored by each judge in ``values``.
JUDGE_AXIS = "judge"
#: How a ``null`` value (the run's own setting: the base condition unchanged) is labelled.
RUN_DEFAULT = "default"


@dataclass(frozen=True)
class Ablation:
    name: str
    kind: str
    title: str
    conditions: tuple[str, ...]
    reference: str | None
    presets: Any  # "*" | list of names | {"family": [...], "template": name}
    corpora: Any  # "*" | list of corpus names
    games: int | None  # subset size per corpus; None = every game
    seed: int
    #: per-corpus subsets that override ``games``/``seed``: corpus -> (count or None, seed)
    corpus_games: Mapping[str, tuple[int | None, int]] = field(default_factory=dict)
    #: the varied setting's dotted path, ``judge``, or None for a list of conditions
    axis: str | None = None
    #: the axis's values as labels (``0.7``, ``default``), one per arm, in the file's order
    values: tuple[str, ...] = ()
    #: the label of the reference value (None: no reference)
    reference_value: str | None = None
    #: condition -> (value label, crossed value label or "") for an axis ablation
    arms: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def subset(self, corpus: str) -> tuple[int | None, int]:
        """(subset size or None for every game, seed) for one corpus."""
        return self.corpus_games.get(corpus, (self.games, self.seed))

    def parsed(self) -> list[Condition]:
        return [Condition.parse(c) for c in self.conditions]

    @property
    def over_judges(self) -> bool:
        """The arms are judges of the same episodes (nothing is played per value)."""
        return self.axis == JUDGE_AXIS

    def arm(self, condition: str) -> tuple[str, str]:
        """(value label, crossed value label) of one of the ablation's conditions."""
        return self.arms.get(condition, (condition, ""))


def _label(value: Any) -> str:
    return RUN_DEFAULT if value is None else format_setting(value)


def _axis_conditions(
    raw: Mapping[str, Any], source: str
) -> tuple[tuple[str, ...], str | None, dict[str, tuple[str, str]], tuple[str, ...], str]:
    """Conditions, reference condition, arms, value labels and reference label of an axis
    file: every value applied to ``base`` (crossed with ``cross`` where given). A value the
    axis cannot take is a :class:`ConfigError` here, when the plan is made."""
    axis, values = raw["axis"], list(raw["values"])
    ref_value = raw.get("reference", values[0])
    if ref_value not in values:
        raise ConfigError(f"{source}: reference {ref_value!r} is not one of the values {values}")
    base = Condition.parse(raw["base"])
    labels = tuple(_label(v) for v in values)
    if axis == JUDGE_AXIS:
        if any(not isinstance(v, str) for v in values):
            raise ConfigError(f"{source}: the values of a judge ablation are judge names")
        return (base.name,), base.name, {}, labels, _label(ref_value)
    cross = raw.get("cross") or {}
    cross_values = list(cross.get("values", [None]))
    conds: list[str] = []
    arms: dict[str, tuple[str, str]] = {}
    ref: str | None = None
    for value in values:
        try:
            at = base.with_setting(axis, value) if value is not None else base
            for other in cross_values:
                cond = at.with_setting(cross["axis"], other) if cross else at
                if cond.name in arms:
                    raise ConfigError(f"{source}: two values give the condition {cond.name}")
                arms[cond.name] = (_label(value), "" if not cross else _label(other))
                conds.append(cond.name)
                if value == ref_value and ref is None:
                    ref = cond.name
        except ConfigError as exc:
            raise ConfigError(f"{source}: axis {axis}: {exc}") from None
    return tuple(conds), ref, arms, labels, _label(ref_value)


def load_ablation(path: str | os.PathLike[str]) -> Ablation:
    """An ablation file, checked: schema, axis and values (each condition it implies must be
    one the project can apply), reference, and the shape its ``kind``'s figure needs."""
    raw = load_validated(path, "ablation")
    source = str(path)
    axis = raw.get("axis")
    if axis is not None:
        conds, ref, arms, labels, ref_label = _axis_conditions(
            {"base": schema_default("ablation", "base"), **raw}, source
        )
    else:
        conds = tuple(Condition.parse(c).name for c in raw["conditions"])
        arms, labels = {}, conds
        ref = raw.get("reference")
        if ref is not None:
            ref = Condition.parse(str(ref)).name
            if ref not in conds:
                raise ConfigError(f"{path}: reference {ref} is not one of the conditions")
        ref_label = ref
    games = raw.get("games", "all")
    per_corpus: dict[str, tuple[int | None, int]] = {}
    if isinstance(games, Mapping) and "count" not in games:
        for corpus, sub in games.items():
            per_corpus[corpus] = (
                (None, 0) if sub == "all" else (int(sub["count"]), int(sub.get("seed", 0)))
            )
        games = "all"
    ab = Ablation(
        name=raw.get("name", Path(path).stem),
        kind=raw.get("kind", schema_default("ablation", "kind")),
        title=raw.get("title", raw.get("name", Path(path).stem)),
        conditions=conds,
        reference=ref,
        presets=raw.get("presets", "*"),
        corpora=raw.get("corpora", "*"),
        games=None if games == "all" else int(games["count"]),
        seed=0 if games == "all" else int(games.get("seed", 0)),
        corpus_games=per_corpus,
        axis=axis,
        values=tuple(labels),
        reference_value=ref_label,
        arms=arms,
    )
    _check_shape(ab, source)
    return ab


def _check_shape(ab: Ablation, source: str) -> None:
    if ab.over_judges and ab.kind != "generic":
        raise ConfigError(f"{source}: a judge ablation is drawn by the generic statistic")
    parsed = ab.parsed()
    if ab.kind == "history":
        if len({(c.hz, c.variant, c.settings) for c in parsed}) != 1:
            raise ConfigError(f"{source}: a history ablation varies only k (same rate and variant)")
    elif ab.kind == "rate":
        ks = {c.history_k for c in parsed}
        if len(ks) != 2 or 0 not in ks or len({c.hz for c in parsed}) < 2:
            raise ConfigError(f"{source}: a rate ablation needs k=0 and one k>0 at >= 2 rates")
        for hz in {c.hz for c in parsed}:
            if {c.history_k for c in parsed if c.hz == hz} != ks:
                raise ConfigError(f"{source}: rate {hz:g} Hz lacks a k=0 or k>0 condition")
    elif ab.kind == "prompting" and ab.reference is None:
        raise ConfigError(f"{source}: a prompting ablation needs a reference (standard) condition")


def select_presets(ab: Ablation, available: Iterable[str], registry: Registry | None) -> list[str]:
    """Presets of the ablation among ``available`` (the run's presets, or those in a table)."""
    available = list(available)
    sel = ab.presets
    if sel == "*":
        return available
    if isinstance(sel, list):
        return [p for p in available if p in sel]
    if registry is None:
        raise ConfigError(f"ablation {ab.name}: a preset selector by field needs the registry")
    out = []
    for name in available:
        if name not in registry.presets:
            continue
        p = registry.presets[name]
        if "family" in sel and p.family not in sel["family"]:
            continue
        if "template" in sel and p.template != sel["template"]:
            continue
        out.append(name)
    return out


def select_corpora(ab: Ablation, available: Iterable[str]) -> list[str]:
    available = list(available)
    return available if ab.corpora == "*" else [c for c in available if c in ab.corpora]


def select_games(game_ids: Sequence[str], count: int | None, seed: int) -> list[str]:
    """A seeded subset of ``count`` games, independent of the order ``game_ids`` come in."""
    ids = sorted(set(game_ids))
    if count is None or count >= len(ids):
        return ids
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(ids), size=count, replace=False)
    return sorted(ids[i] for i in pick)


def ablation_scores(
    df: pd.DataFrame, ab: Ablation, registry: Registry | None
) -> tuple[pd.DataFrame, list[str]]:
    """Rows of a scores table that belong to an ablation, and the conditions never run.

    Presets and corpora by the ablation's selectors; per corpus, only games that have a row
    (any status) for every selected preset under every condition that was run: the subset that
    was actually played, whatever subset the play stage drew. A condition with no row at all is
    left out and reported, so a figure shows what exists and says what does not.
    """
    sub = df[df["condition"].isin(ab.conditions)]
    presets = select_presets(ab, sorted(sub["preset"].unique()), registry)
    corpora = select_corpora(ab, sorted(sub["corpus"].unique()))
    sub = sub[sub["preset"].isin(presets) & sub["corpus"].isin(corpora)]
    present = [c for c in ab.conditions if c in set(sub["condition"])]
    missing = [c for c in ab.conditions if c not in present]
    need = len(presets) * len(present)
    seen = sub.groupby(["corpus", "game"]).size()
    complete = seen[seen == need].index
    keyed = sub.set_index(["corpus", "game"])
    return keyed[keyed.index.isin(complete)].reset_index(), missing


def judge_ablation_scores(
    tables: Mapping[str, pd.DataFrame], ab: Ablation, registry: Registry | None
) -> tuple[pd.DataFrame, list[str]]:
    """An ablation over judges as :func:`ablation_scores` sees any ablation: each judge's rows
    of the judged condition, with ``condition`` set to the judge, so the judges are the arms
    and the matched pairs are the same episodes scored twice. Judges without a table are
    reported like conditions never run."""
    judged = ab.conditions[0]
    frames = [
        t[t["condition"] == judged].assign(condition=judge)
        for judge, t in tables.items()
        if judge in ab.values
    ]
    arms = replace(ab, conditions=ab.values, reference=ab.reference_value)
    empty = pd.DataFrame(columns=next(iter(tables.values())).columns) if tables else pd.DataFrame()
    df = pd.concat(frames, ignore_index=True) if frames else empty
    return ablation_scores(df, arms, registry)
