"""The ``analysis:`` section of the workflow configuration, with the paper's defaults.

Every statistic reads its knobs (bootstrap size, genre threshold, stability sizes, which
conditions are "with" and "without" history) from here, so the embedded default and the paper
differ only in configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.config import Condition


@dataclass(frozen=True)
class StabilitySpec:
    sizes: tuple[int, ...] = (50, 200, 500, 2000)
    subsets: int = 1000
    seed: int = 0
    top: int = 3
    condition: str | None = None  # None: the main condition without history


@dataclass(frozen=True)
class AnalysisSettings:
    with_history: str = "k3-hz0.33-base"
    without_history: str = "k0-hz0.33-base"
    bootstrap: BootstrapSpec = field(default_factory=BootstrapSpec)
    genre_min_games: int = 60
    stability: StabilitySpec = field(default_factory=StabilitySpec)
    ablations: tuple[str, ...] = ()
    reference: str | None = "config/reference/paper.yaml"
    ratings: str | None = None
    #: judge -> a scores table that already exists (analysis.scores): the workflow analyses it
    #: and plays and judges nothing (docs/analysis.md)
    scores: dict[str, str] = field(default_factory=dict)
    costs: str = "results/costs"
    benchmarks: str = "results/benchmarks"
    judge_costs: str = "results/judge_costs"
    cost_corpus: str | None = None  # None: every corpus's jobs and scored games count
    cost_condition_name: str | None = None  # None: the main condition without history

    @property
    def stability_condition(self) -> str:
        return self.stability.condition or self.without_history

    @property
    def cost_condition(self) -> str:
        """The condition of the campaign the cost figure covers (paper: no history)."""
        return self.cost_condition_name or self.without_history


def analysis_settings(config: Mapping[str, Any]) -> AnalysisSettings:
    """Settings from a whole workflow config (its ``analysis`` key may be absent)."""
    raw = dict(config.get("analysis") or {})
    main = raw.get("main", {})
    boot = raw.get("bootstrap", {})
    stab = raw.get("stability", {})
    out = AnalysisSettings(
        with_history=main.get("with_history", AnalysisSettings.with_history),
        without_history=main.get("without_history", AnalysisSettings.without_history),
        bootstrap=BootstrapSpec(
            resamples=int(boot.get("resamples", 10_000)),
            confidence=float(boot.get("confidence", 0.95)),
            seed=int(boot.get("seed", config.get("seed", 0))),
        ),
        genre_min_games=int(raw.get("genres", {}).get("min_games", 60)),
        stability=StabilitySpec(
            sizes=tuple(int(n) for n in stab.get("sizes", StabilitySpec.sizes)),
            subsets=int(stab.get("subsets", StabilitySpec.subsets)),
            seed=int(stab.get("seed", config.get("seed", 0))),
            top=int(stab.get("top", StabilitySpec.top)),
            condition=stab.get("condition"),
        ),
        ablations=tuple(raw.get("ablations", ())),
        reference=raw.get("reference", AnalysisSettings.reference),
        ratings=raw.get("ratings"),
        scores={str(j): str(path) for j, path in (raw.get("scores") or {}).items()},
        costs=raw.get("costs", AnalysisSettings.costs),
        benchmarks=raw.get("benchmarks", AnalysisSettings.benchmarks),
        judge_costs=raw.get("judge_costs", AnalysisSettings.judge_costs),
        cost_corpus=(raw.get("cost") or {}).get("corpus"),
        cost_condition_name=(raw.get("cost") or {}).get("condition"),
    )
    for name in (
        out.with_history,
        out.without_history,
        out.stability_condition,
        out.cost_condition,
    ):
        Condition.parse(name)
    return out
