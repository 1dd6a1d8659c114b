"""The episodes an ablation asks for, and the checks that make a bad ablation fail at plan time.

An ablation file (playsuite.analysis.ablations) says what to compare; this module decides what
that means in jobs: which (corpus, preset, condition) runs over which games. It is the one place
an ablation is checked against the run it belongs to (its judges, its presets), so that an axis
or a value the project cannot apply is an error before any job starts, not a failed job later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from playsuite.analysis.ablations import (
    Ablation,
    load_ablation,
    select_corpora,
    select_games,
    select_presets,
)
from playsuite.config import ConfigError
from playsuite.registry import Registry


def ablation_plan(
    ab: Ablation,
    corpus_games: Mapping[str, Sequence[str]],
    presets: Sequence[str],
    registry: Registry | None,
) -> list[tuple[str, str, str, list[str]]]:
    """(corpus, preset, condition, games) the play stage must run for this ablation.

    An ablation over judges plays its one condition; the judges it compares judge those same
    episodes (every judge of the run judges every run), so nothing is played twice.
    """
    plan = []
    for corpus in select_corpora(ab, corpus_games):
        games = select_games(corpus_games[corpus], *ab.subset(corpus))
        for preset in select_presets(ab, presets, registry):
            for cond in ab.conditions:
                plan.append((corpus, preset, cond, games))
    return plan


def check_ablation(ab: Ablation, config: Mapping[str, Any], registry: Registry) -> None:
    """What :func:`load_ablation` cannot know alone: the run's judges and presets.

    A judge ablation compares judges that must all score the run (``judges`` of the workflow
    config, or the tables ``analysis.scores`` gives); a list of presets must name registry
    presets; when the run plays, the selection must leave one of its presets, or the ablation
    would silently draw nothing.
    """
    where = f"ablation {ab.name}"
    given = list((config.get("analysis") or {}).get("scores") or {})
    judges = given or list(config.get("judges", []))
    if ab.over_judges:
        missing = [j for j in ab.values if j not in judges]
        if missing:
            key = "analysis.scores" if given else "judges"
            raise ConfigError(
                f"{where}: judges {missing} are not judges of this run "
                f"({key}: {judges}); add them to `{key}`"
            )
    if isinstance(ab.presets, list):
        unknown = [p for p in ab.presets if p not in registry.presets]
        if unknown:
            raise ConfigError(f"{where}: presets {unknown} are not in the model registry")
    if not given and not select_presets(ab, list(config["presets"]), registry):
        raise ConfigError(f"{where}: its presets select none of the run's {config['presets']}")


def check_ablations(config: Mapping[str, Any], registry: Registry) -> list[Ablation]:
    """Every configured ablation (``analysis.ablations``), loaded and checked."""
    out = []
    for path in (config.get("analysis") or {}).get("ablations") or []:
        ab = load_ablation(path)
        check_ablation(ab, config, registry)
        out.append(ab)
    return out


def ablation_runs(
    config: Mapping[str, Any], registry: Registry, corpus_games: Mapping[str, Sequence[str]]
) -> list[tuple[str, str, str, list[str]]]:
    """Every configured ablation's runs (``analysis.ablations``), each ablation checked first."""
    runs = []
    for ab in check_ablations(config, registry):
        runs += ablation_plan(ab, corpus_games, list(config["presets"]), registry)
    return runs
