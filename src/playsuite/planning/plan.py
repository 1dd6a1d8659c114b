"""The workflow's planner: built once from the validated configuration, asked by the rules.

rules/common.smk makes one :class:`Plan` (``PLAN = Plan.from_config(config)``); the rules call
its methods as input, params and resource functions, and the stage planners hang off it:
:meth:`Plan.judge_plan` (playsuite.planning.judge) plans the judge shards from the play targets.
Everything the plan reads (corpus tables, the model registry, ablation files) is read here, once;
every path it names comes from :mod:`playsuite.planning.paths`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from playsuite.analysis.settings import AnalysisSettings, analysis_settings
from playsuite.config import Condition, load_validated
from playsuite.corpus import GameEntry
from playsuite.planning import paths
from playsuite.planning.ablations import check_ablations
from playsuite.planning.judge import JudgePlan
from playsuite.planning.play import (
    EngineChecks,
    ShardUnit,
    block_index,
    blocks_of,
    corpus_games,
    engine_checks,
    engine_vllm,
    game_blocks,
    play_settings,
    protocol_option,
    require_corpus_tables,
    server_argv_option,
    shard_units,
    tiny_model,
)
from playsuite.registry import Registry, parse_registry


@dataclass
class Plan:
    """What one workflow run plays, judges and analyses (see the module docstring)."""

    config: Mapping[str, Any]
    registry: Registry
    analysis: AnalysisSettings
    play: dict[str, Any]
    vllm: str
    checks: EngineChecks
    units: list[ShardUnit] = field(default_factory=list)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Plan:
        """The plan of ``config`` (validated, its defaults filled by Snakemake's ``validate``).

        With ``analysis.scores`` the workflow is the analysis stage alone: no corpus table is
        read and nothing is played. Otherwise a missing corpus table fails here, naming what
        builds it, and every preset, judge and condition is checked before any job starts.
        """
        analysis = analysis_settings(config)
        if not analysis.scores:
            require_corpus_tables(config)
        registry = parse_registry(load_validated(config["models"], "models"))
        for preset in config["presets"]:
            registry.preset(preset)
        for judge in config["judges"]:
            registry.judge(judge)
        for condition in config["conditions"]:
            Condition.parse(condition)
        checks = engine_checks(config, registry)
        if analysis.scores:  # nothing is played; the ablations are still checked here
            check_ablations(config, registry)
        units = [] if analysis.scores else shard_units(config, registry)
        return cls(
            config, registry, analysis, play_settings(config), engine_vllm(config), checks, units
        )

    @property
    def scores_given(self) -> dict[str, str]:
        """``analysis.scores``: judge -> a ready scores table (then nothing is played)."""
        return self.analysis.scores

    # -- play shards ----------------------------------------------------------------------------

    @cached_property
    def unit_by_key(self) -> dict[tuple[str, str, str, str], ShardUnit]:
        return {(u.corpus, u.preset, u.condition, u.shard): u for u in self.units}

    @cached_property
    def unit_of_episode(self) -> dict[paths.EpisodeKey, ShardUnit]:
        """The shard that plays each planned episode (engine checks included)."""
        return {key: unit for unit in self.units for key in unit.episodes()}

    def unit(self, wc: Any) -> ShardUnit:
        """The play shard named by a rule's wildcards."""
        return self.unit_by_key[(wc.corpus, wc.preset, wc.condition, wc.shard)]

    def episode_unit(self, wc: Any) -> ShardUnit:
        """The shard of the episode named by a rule's wildcards; a game the plan does not play
        with that preset and condition is refused with the reason."""
        key = paths.EpisodeKey(wc.corpus, wc.preset, wc.condition, wc.game)
        try:
            return self.unit_of_episode[key]
        except KeyError:
            raise ValueError(
                f"no planned episode {key.dir}: the configuration does not play game "
                f"{key.game!r} of corpus {key.corpus!r} with preset {key.preset!r} under "
                f"{key.condition!r}"
            ) from None

    def paper_manifests(self) -> list[str]:
        """Play manifests of the paper's runs (main and ablations)."""
        return [u.manifest for u in self.units if not u.check]

    def check_manifests(self) -> list[str]:
        """Play manifests of the engine checks."""
        return [u.manifest for u in self.units if u.check]

    def is_check(self, wc: Any) -> bool:
        unit = self.unit_by_key.get((wc.corpus, wc.preset, wc.condition, wc.shard))
        return bool(unit and unit.check)

    def server_argv(self, wc: Any) -> str:
        """play-shard's ``--server-argv`` from ``play.server_argv``; none for engine checks,
        which always start the real engine."""
        if wc.preset in self.checks.presets:
            return ""
        return server_argv_option(self.config, wc.preset)

    def preset_model(self, wc: Any) -> list[str]:
        """The tiny model folder a play job of ``wc.preset`` needs built, if any."""
        return tiny_model(self.registry.preset(wc.preset))

    def judge_model(self, wc: Any) -> list[str]:
        """The tiny model folder a judge job of ``wc.judge`` needs built, if any."""
        return tiny_model(self.registry.judge(wc.judge))

    def preset_resource(self, preset: str, name: str, default: Any) -> Any:
        """A Slurm resource of a preset's jobs (models.yaml ``resources``); CPU jobs for
        baselines."""
        spec = self.registry.preset(preset)
        return spec.resources.get(name, default) if spec.needs_server else default

    def steps_option(self) -> str:
        """``playsuite play-shard``'s episode length: ``--steps`` and the run's protocol
        options (``--action-budget``, ``--reset-on-fail``, ``--realtime``)."""
        steps = f"--steps {self.play['steps']}" if self.play["steps"] is not None else ""
        return steps + protocol_option(self.config)

    # -- acquisition ----------------------------------------------------------------------------

    @cached_property
    def blocks(self) -> dict[str, dict[str, tuple[str, ...]]]:
        """``{corpus: {block: game ids}}`` (rule acquired_block)."""
        return {} if self.scores_given else game_blocks(self.config)

    @cached_property
    def block_of(self) -> dict[tuple[str, str], str]:
        return block_index(self.blocks)

    def block_files(self, wc: Any) -> list[str]:
        """The acquisition blocks a play shard waits for."""
        unit = self.unit(wc)
        return [paths.acquired_block(unit.corpus, b) for b in blocks_of(unit, self.block_of)]

    def episode_block_files(self, wc: Any) -> list[str]:
        """The acquisition block holding one episode's game."""
        return [paths.acquired_block(wc.corpus, self.block_of[(wc.corpus, wc.game)])]

    def block_games(self, wc: Any) -> list[str]:
        return [paths.acquired(g) for g in self.blocks[wc.corpus][wc.block]]

    @cached_property
    def table_of_game(self) -> dict[str, str]:
        """Game id -> table of the first configured corpus that lists it."""
        out: dict[str, str] = {}
        for corpus in [] if self.scores_given else reversed(list(self.config["corpora"])):
            for game in corpus_games(self.config, corpus):
                out[game.id] = self.config["corpora"][corpus]["table"]
        return out

    @cached_property
    def row_of_game(self) -> dict[str, GameEntry]:
        """Game id -> its row in the first configured corpus that lists it."""
        out: dict[str, GameEntry] = {}
        for corpus in [] if self.scores_given else reversed(list(self.config["corpora"])):
            for game in corpus_games(self.config, corpus):
                out[game.id] = game
        return out

    def acquire_request(self, wc: Any) -> str:
        """What decides a game's acquisition (its row's part; a local game's content hash), as
        a rule parameter: a change reruns ``acquire_game`` (Snakemake's params trigger)."""
        from playsuite.runtimes.acquire import request_of

        return json.dumps(request_of(self.row_of_game[wc.game]), sort_keys=True)

    def corpus_of_game(self, game: str) -> str:
        try:
            return self.table_of_game[game]
        except KeyError:
            raise ValueError(f"game {game!r} is in no configured corpus") from None

    def human_targets(self) -> list[str]:
        """``meta.json`` of every episode a person played (``playsuite human play``) that is on
        disk now, for a configured corpus, game and condition: the judge stage judges them
        like the models' (they are in no play shard), so their scores, and a human row in the
        tables, follow. None with ``analysis.scores``."""
        if self.scores_given:
            return []
        found = []
        for corpus in self.config["corpora"]:
            games = {g.id for g in corpus_games(self.config, corpus)}
            for condition in self.config["conditions"]:
                run = Path(
                    paths.RUN_DIR.format(
                        corpus=corpus, preset=paths.HUMAN_PRESET, condition=condition
                    )
                )
                if run.is_dir():
                    found += [
                        str(run / game / "meta.json")
                        for game in sorted(games)
                        if (run / game / "meta.json").is_file()
                    ]
        return found

    def launch_targets(self) -> list[str]:
        """Launch validation of every game, one job per acquisition block (rule
        validate_launch_block): at paper scale ~90 jobs instead of one per game (~5,700)."""
        return sorted(
            paths.launch_block(corpus, block)
            for corpus, by_block in self.blocks.items()
            for block in by_block
        )

    def conformance_files(self, wc: Any) -> list[str]:
        """The conformance verdict of every game of corpus ``wc.corpus`` whose runtime exists."""
        from playsuite.runtimes.factory import RUNTIMES

        if wc.corpus not in self.config["corpora"]:
            raise ValueError(f"corpus {wc.corpus!r} is not configured (corpora: ...)")
        return [
            paths.conformance(game.id)
            for game in corpus_games(self.config, wc.corpus)
            if game.runtime in RUNTIMES
        ]

    # -- judging --------------------------------------------------------------------------------

    def judge_plan(
        self,
        play_targets: Callable[[], Iterable[str]] | None = None,
        check_targets: Callable[[], Iterable[str]] | None = None,
    ) -> JudgePlan:
        """The judge shards over the play stage's targets (by default this plan's paper
        manifests; rules/common.smk hands in its ``play_targets()``, which a test may narrow);
        the engine checks' by the check judge alone."""
        return JudgePlan(
            dict(self.config),
            self.registry,
            play_targets or self.paper_manifests,
            self.checks.judge,
            check_targets or self.check_manifests,
        )
