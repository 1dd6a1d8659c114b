"""The ``analysis:`` section of the workflow configuration (the paper's defaults, from the schema).

Every statistic reads its knobs (bootstrap size, genre threshold, stability sizes, which
conditions are "with" and "without" history) from here, so the embedded default and the paper
differ only in configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.config import Condition, with_defaults


@dataclass(frozen=True)
class StabilitySpec:
    sizes: tuple[int, ...]
    subsets: int
    seed: int
    top: int
    condition: str | None  # None: the main condition without history


@dataclass(frozen=True)
class AnalysisSettings:
    """The ``analysis:`` section, defaults filled in from the schema."""

    with_history: str
    without_history: str
    bootstrap: BootstrapSpec
    genre_min_games: int
    stability: StabilitySpec
    ablations: tuple[str, ...]
    reference: str | None
    ratings: str | None
    #: judge -> a scores table that already exists (analysis.scores): the workflow analyses it
    #: and plays and judges nothing (docs/analysis.md)
    scores: dict[str, str]
    costs: str
    benchmarks: str
    judge_costs: str
    cost_corpus: str | None  # None: every corpus's jobs and scored games count
    cost_condition_name: str | None  # None: the main condition without history

    @property
    def stability_condition(self) -> str:
        return self.stability.condition or self.without_history

    @property
    def cost_condition(self) -> str:
        """The condition of the campaign the cost figure covers (paper: no history)."""
        return self.cost_condition_name or self.without_history


def analysis_settings(config: Mapping[str, Any]) -> AnalysisSettings:
    """Settings from a whole workflow config (its ``analysis`` key may be absent): every
    default comes from the schema (config/schemas/config.schema.json); the bootstrap and
    stability seeds default to the workflow's ``seed``."""
    raw = with_defaults(config.get("analysis"), "config", "analysis")
    seed = int(config.get("seed") or 0)
    main, boot, stab, cost = raw["main"], raw["bootstrap"], raw["stability"], raw["cost"]
    out = AnalysisSettings(
        with_history=main["with_history"],
        without_history=main["without_history"],
        bootstrap=BootstrapSpec(
            resamples=int(boot["resamples"]),
            confidence=float(boot["confidence"]),
            seed=int(boot.get("seed", seed)),
        ),
        genre_min_games=int(raw["genres"]["min_games"]),
        stability=StabilitySpec(
            sizes=tuple(int(n) for n in stab["sizes"]),
            subsets=int(stab["subsets"]),
            seed=int(stab.get("seed", seed)),
            top=int(stab["top"]),
            condition=stab["condition"],
        ),
        ablations=tuple(raw["ablations"]),
        reference=raw["reference"],
        ratings=raw["ratings"],
        scores={str(j): str(path) for j, path in (raw.get("scores") or {}).items()},
        costs=raw["costs"],
        benchmarks=raw["benchmarks"],
        judge_costs=raw["judge_costs"],
        cost_corpus=cost["corpus"],
        cost_condition_name=cost["condition"],
    )
    for name in (
        out.with_history,
        out.without_history,
        out.stability_condition,
        out.cost_condition,
    ):
        Condition.parse(name)
    return out
