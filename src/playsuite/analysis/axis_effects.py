"""The one statistic every ablation can be drawn with: one setting's values side by side.

Per corpus and per value (an *arm*: one condition, or one judge of a judge ablation) it gives,
for each model and for all models pooled (every valid evaluation counts once):

- ``mean`` progress level and ``partial`` (Partial+, percent) over the arm's valid evaluations;
- against the reference arm, on matched game-model pairs (both episodes valid): ``delta``
  (mean difference), ``delta partial`` (difference in Partial+, percentage points) and the two
  means on those pairs (``matched mean``, ``reference mean``).

Every interval comes from one game-level bootstrap per corpus (playsuite.analysis.bootstrap):
all columns share the resamples, so a difference keeps its pairing. A crossed ablation (the
action rate: each rate without and with history) compares each arm with the reference value
at the same crossed value. The history and prompting figures are this statistic's ``mean`` and
``delta`` rows drawn the paper's way (tests/analysis/test_axis_effects.py checks it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from playsuite.analysis.ablations import Ablation
from playsuite.analysis.bootstrap import BootstrapSpec, cells, pooled, ratio_bootstrap, stack
from playsuite.analysis.history import ALL_MODELS
from playsuite.analysis.scores import corpus_games, level_matrix, ordered_presets, partial_plus

#: Statistics on every valid evaluation of an arm, then those against the reference arm.
OWN = ("mean", "partial")
PAIRED = ("delta", "delta partial", "matched mean", "reference mean")


@dataclass(frozen=True)
class Arms:
    """What the statistic compares: arm names as they appear in the table's ``condition``
    column, each arm's (value, crossed value) labels and its reference arm (None: none)."""

    names: tuple[str, ...]
    labels: Mapping[str, tuple[str, str]]
    reference: Mapping[str, str | None]


def ablation_arms(ab: Ablation) -> Arms:
    """The arms of an ablation: its conditions, with each crossed value compared with the
    reference value's condition at the same crossed value. An ablation over judges has one
    arm per judge (its table's ``condition`` column renamed to the judge)."""
    if ab.over_judges:
        names = ab.values
        labels = {j: (j, "") for j in names}
        return Arms(names, labels, {j: ab.reference_value for j in names})
    names = ab.conditions
    labels = {c: ab.arm(c) for c in names}
    refs: dict[str, str | None] = {}
    for cond in names:
        cross = labels[cond][1]
        match = [
            c for c in names if labels[c] == (ab.reference_value, cross) and ab.axis is not None
        ]
        refs[cond] = match[0] if match else ab.reference
    return Arms(names, labels, refs)


def _columns(x: np.ndarray, base: np.ndarray | None) -> dict[str, np.ndarray]:
    """The statistic's matrices (games x models, NaN where a cell does not count) of one arm."""
    out = {"mean": x, "partial": 100.0 * partial_plus(x)}
    if base is not None:
        matched = ~np.isnan(x) & ~np.isnan(base)
        out["delta"] = np.where(matched, x - base, np.nan)
        out["delta partial"] = np.where(
            matched, 100.0 * (partial_plus(x) - partial_plus(base)), np.nan
        )
        out["matched mean"] = np.where(matched, x, np.nan)
        out["reference mean"] = np.where(matched, base, np.nan)
    return out


def axis_effects(
    df: pd.DataFrame, ab: Ablation, spec: BootstrapSpec, arms: Arms | None = None
) -> pd.DataFrame:
    """Long table, one row per corpus, arm and model (or ``all models``).

    Columns: ``corpus``, ``axis``, ``value``, ``cross``, ``condition`` (the arm), ``reference``
    (its reference arm), ``model``, ``games``; for each statistic of :data:`OWN` and
    :data:`PAIRED` the point estimate with ``{stat} low`` / ``{stat} high`` and ``{stat} n``
    (valid cells, or matched pairs). Paired columns are empty for a reference arm. ``df`` holds
    the ablation's rows only (:func:`playsuite.analysis.ablations.ablation_scores`).
    """
    arms = arms or ablation_arms(ab)
    run = set(df["condition"]) if not df.empty else set()
    present = [a for a in arms.names if a in run]
    presets = ordered_presets(df) if not df.empty else []
    rows: list[dict] = []
    for corpus in sorted(df["corpus"].unique()) if not df.empty else []:
        games = corpus_games(df, corpus)
        x = {a: level_matrix(df, corpus, a, presets, games) for a in present}
        pairs, keys = [], []
        for arm in present:
            ref = arms.reference.get(arm)
            base = x[ref] if ref in x and ref != arm else None
            for stat, values in _columns(x[arm], base).items():
                pairs += [cells(values), pooled(values)]
                keys += [(arm, p, stat) for p in presets] + [(arm, ALL_MODELS, stat)]
        if not pairs:
            continue
        num, den = stack(*pairs)
        est = ratio_bootstrap(num, den, spec)
        by: dict[tuple[str, str], dict] = {}
        for i, (arm, model, stat) in enumerate(keys):
            value, cross = arms.labels[arm]
            ref = arms.reference.get(arm)
            row = by.setdefault(
                (arm, model),
                {
                    "corpus": corpus,
                    "axis": ab.axis or "condition",
                    "value": value,
                    "cross": cross,
                    "condition": arm,
                    "reference": ref if ref in x else None,
                    "model": model,
                    "games": len(games),
                },
            )
            row[stat] = est.point[i]
            row[f"{stat} low"] = est.low[i]
            row[f"{stat} high"] = est.high[i]
            row[f"{stat} n"] = int(den[:, i].sum())
        rows += list(by.values())
    table = pd.DataFrame(rows)
    order = ["corpus", "axis", "value", "cross", "condition", "reference", "model", "games"]
    stats = [f"{s}{part}" for s in (*OWN, *PAIRED) for part in ("", " low", " high", " n")]
    if table.empty:
        return table
    table = table.reindex(columns=order + stats)
    for stat in (*OWN, *PAIRED):
        # whole counts, empty where the arm is not compared (no float "8.000", no "<NA>")
        counts = [None if pd.isna(v) else int(v) for v in table[f"{stat} n"]]
        table[f"{stat} n"] = pd.Series(counts, index=table.index, dtype=object)
    return table


def arm_order(table: pd.DataFrame, arms: Sequence[str]) -> list[str]:
    """The arms of ``table`` in the ablation file's order (the figure's x axis)."""
    seen = set(table["condition"]) if not table.empty else set()
    return [a for a in arms if a in seen]
