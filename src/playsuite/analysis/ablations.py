"""Ablation definitions (``config/ablations/*.yaml``): which conditions, presets and games.

An ablation is data, not code: a file names the statistic that draws it (``history``, ``rate``,
``prompting``), the conditions, a preset selector and a seeded game subset per corpus. Adding a
condition or a model to a figure is an edit to the file. The play stage asks
:func:`ablation_plan` which episodes to run; the analysis restricts each figure to the games
played under every one of the ablation's conditions, so the two always agree.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from playsuite.config import Condition, ConfigError, load_validated
from playsuite.registry import Registry

KINDS = ("history", "rate", "prompting")


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

    def subset(self, corpus: str) -> tuple[int | None, int]:
        """(subset size or None for every game, seed) for one corpus."""
        return self.corpus_games.get(corpus, (self.games, self.seed))

    def parsed(self) -> list[Condition]:
        return [Condition.parse(c) for c in self.conditions]


def load_ablation(path: str | os.PathLike[str]) -> Ablation:
    raw = load_validated(path, "ablation")
    conds = tuple(Condition.parse(c).name for c in raw["conditions"])
    ref = raw.get("reference")
    if ref is not None:
        ref = Condition.parse(ref).name
        if ref not in conds:
            raise ConfigError(f"{path}: reference {ref} is not one of the conditions")
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
        kind=raw["kind"],
        title=raw.get("title", raw.get("name", Path(path).stem)),
        conditions=conds,
        reference=ref,
        presets=raw.get("presets", "*"),
        corpora=raw.get("corpora", "*"),
        games=None if games == "all" else int(games["count"]),
        seed=0 if games == "all" else int(games.get("seed", 0)),
        corpus_games=per_corpus,
    )
    _check_shape(ab, str(path))
    return ab


def _check_shape(ab: Ablation, source: str) -> None:
    parsed = ab.parsed()
    if ab.kind == "history":
        if len({(c.hz, c.variant) for c in parsed}) != 1:
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


def ablation_plan(
    ab: Ablation,
    corpus_games: Mapping[str, Sequence[str]],
    presets: Sequence[str],
    registry: Registry | None,
) -> list[tuple[str, str, str, list[str]]]:
    """(corpus, preset, condition, games) the play stage must run for this ablation."""
    plan = []
    for corpus in select_corpora(ab, corpus_games):
        games = select_games(corpus_games[corpus], *ab.subset(corpus))
        for preset in select_presets(ab, presets, registry):
            for cond in ab.conditions:
                plan.append((corpus, preset, cond, games))
    return plan


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
