"""What the workflow plays: every (corpus, preset, condition) run, its games, and its shards.

The main runs are every configured corpus × preset × condition over all of a corpus's games; each
ablation (``config/ablations/*.yaml``) adds its own conditions on its presets and a seeded game
subset. A run's games are cut into shards of ``play.shard_size``: one shard is one job (one model
server, W game workers). Play and judge jobs share these shards, and ``snakemake -n`` only ever
sees shards, which keeps the paper's DAG small. This module sits above the harness and the
analysis (it reads ablation files) and is used by the workflow and the command line.

*Engine checks* (``engine.checks``) are runs of their own, apart from the paper's: tiny
random-weight presets play one corpus under the main with-history condition through the real
engine, and a tiny judge judges exactly those episodes. Their shards are marked ``check`` so that
no paper judge, scores table or statistic ever sees them.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from playsuite.agents.agent import check_agent_settings
from playsuite.agents.prompts import template_for
from playsuite.analysis.settings import analysis_settings
from playsuite.config import Condition, ConfigError, with_defaults
from playsuite.corpus import GameEntry, load_corpus
from playsuite.harness.protocol import (
    GAME_OVER_PROBE,
    SETTINGS,
    PlayProtocol,
    check_condition_protocol,
)
from playsuite.harness.shards import shard_key
from playsuite.inference.command import fill_server_argv
from playsuite.planning import paths
from playsuite.planning.ablations import ablation_runs
from playsuite.registry import JudgePreset, Preset, Registry


@dataclass(frozen=True)
class ShardUnit:
    """One play (and judge) job: a shard of one run."""

    corpus: str
    preset: str
    condition: str
    shard: str
    games: tuple[str, ...]
    check: bool = False  # an engine-check run (engine.checks), kept apart from the paper's

    @property
    def run_dir(self) -> str:
        return paths.run_dir(self.corpus, self.preset, self.condition)

    @property
    def manifest(self) -> str:
        return paths.play_manifest(self.corpus, self.preset, self.condition, self.shard)

    def episodes(self) -> list[paths.EpisodeKey]:
        """The episodes this shard plays."""
        return [paths.EpisodeKey(self.corpus, self.preset, self.condition, g) for g in self.games]


def play_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config["play"]`` with the schema's defaults (config/schemas/config.schema.json)."""
    return with_defaults(config.get("play"), "config", "play")


def engine_vllm(config: Mapping[str, Any]) -> str:
    """The vLLM command play and judge jobs start (``engine.vllm``, default in the schema)."""
    return str(with_defaults(config.get("engine"), "config", "engine")["vllm"])


@dataclass(frozen=True)
class EngineChecks:
    """The configured engine checks (``engine.checks``); empty (false) when there are none."""

    corpus: str = ""
    presets: tuple[str, ...] = ()
    judge: str = ""
    condition: str = ""  # the main condition with history (analysis.main.with_history)

    def __bool__(self) -> bool:
        return bool(self.presets)


def engine_checks(config: Mapping[str, Any], registry: Registry) -> EngineChecks:
    """``engine.checks`` of ``config``, checked against the registry and the rest of the config.

    Checks are random-weight models by definition: every check preset and the check judge must be
    a ``tiny`` registry entry, and a check preset must not also be one of ``presets`` (its runs
    would then enter the paper's tables).
    """
    raw = (config.get("engine") or {}).get("checks")
    if not raw:
        return EngineChecks()
    corpus = str(raw["corpus"])
    if corpus not in config["corpora"]:
        raise ConfigError(f"engine.checks.corpus {corpus!r} is not one of the configured corpora")
    presets = tuple(raw["presets"])
    for name in presets:
        if not registry.preset(name).tiny:
            raise ConfigError(
                f"engine.checks: preset {name!r} is not a tiny random-weight preset (models.yaml "
                "`tiny`); engine checks never run real models"
            )
        if name in config["presets"]:
            raise ConfigError(
                f"preset {name!r} is both an engine check and one of `presets`; list it in one "
                "place (engine checks stay out of the paper's tables)"
            )
    judge = str(raw["judge"])
    if not registry.judge(judge).tiny:
        raise ConfigError(f"engine.checks: judge {judge!r} is not a tiny random-weight judge")
    return EngineChecks(corpus, presets, judge, analysis_settings(config).with_history)


def tiny_model(spec: Preset | JudgePreset) -> list[str]:
    """The model folder a job of ``spec`` needs built first (``[hf_id]`` of tiny models)."""
    return [str(spec.hf_id)] if spec.tiny and spec.hf_id else []


def require_corpus_tables(config: Mapping[str, Any]) -> None:
    """Fail, naming the table and how to make it, when a configured corpus table is missing.

    The plan reads every table before any rule runs, so a table the catalog stage has not made
    yet cannot be built by the same run: without this check the plan stopped on a bare
    FileNotFoundError deep in the planning code.
    """
    for corpus, spec in config["corpora"].items():
        table = str(spec["table"])
        if Path(table).is_file():
            continue
        message = f"corpora.{corpus}.table: {table} does not exist."
        if name := paths.catalog_table_corpus(table):
            message += (
                f" It is the catalog stage's curated table (docs/catalog.md); build it first "
                f"under a configuration that does not play it yet: write CATALOG.yaml with only "
                f"catalog.corpora.{name} (the platform dump and archive mirror) and run "
                f"`snakemake --cores 4 {table} --configfile CATALOG.yaml` (merged into the "
                f"embedded default; not with profiles/slurm, which replaces it). Then rerun."
            )
        else:
            message += " Point it at an existing corpus table (YAML or curated games.tsv)."
        message += " To plan without the tables: benchmarks/plan_paper.py."
        raise ConfigError(message)


@cache
def _corpus(table: str) -> tuple[GameEntry, ...]:
    return tuple(load_corpus(table))


def corpus_games(config: Mapping[str, Any], corpus: str) -> tuple[GameEntry, ...]:
    return _corpus(str(config["corpora"][corpus]["table"]))


def run_games(
    config: Mapping[str, Any], registry: Registry
) -> dict[tuple[str, str, str], list[str]]:
    """``{(corpus, preset, condition): sorted game ids}`` for the main runs and every ablation."""
    runs: dict[tuple[str, str, str], set[str]] = {}
    ids = {c: [g.id for g in corpus_games(config, c)] for c in config["corpora"]}
    for corpus, games in ids.items():
        for preset in config["presets"]:
            for condition in config["conditions"]:
                runs.setdefault((corpus, preset, condition), set()).update(games)
    for corpus, preset, condition, games in ablation_runs(config, registry, ids):
        runs.setdefault((corpus, preset, condition), set()).update(games)
    tasked = {c: {g.id: len(g.tasks) for g in corpus_games(config, c)} for c in ids}
    return {
        key: sorted(g for g in games if has_task_of(key[2], tasked[key[0]][g]))
        for key, games in sorted(runs.items())
    }


def has_task_of(condition: str, tasks: int) -> bool:
    """Whether a game with ``tasks`` tasks is played under ``condition``: always, but under
    ``task.index=N`` (a GameWorld task run) only when it has an N-th task. Without one the
    prompt would name no task and the episode would count for nothing (playsuite.analysis.tasks
    skips it): a job's worth of play at paper scale, spent for no row."""
    index = Condition.parse(condition).get("task.index")
    return index is None or index < tasks


def check_prompt_templates(runs: Sequence[tuple[str, str, str]], registry: Registry) -> None:
    """Every run's prompt template exists and its preset can play its interface, or the plan
    fails before any job starts.

    A condition's variant names a template file (``{template}+{variant}``); a missing one used to
    surface inside each play job, after its model server had been started for nothing.
    """
    for preset, condition in sorted({(p, c) for _, p, c in runs}):
        template_for(registry.preset(preset), condition)
        check_agent_settings(registry.preset(preset), Condition.parse(condition))


def run_protocol(config: Mapping[str, Any]) -> PlayProtocol:
    """The run's protocol options (``play.action_budget``, ``reset_on_fail``, ``realtime``)."""
    play = play_settings(config)
    return PlayProtocol(**{name: play[name] for name in SETTINGS})


def check_protocols(config: Mapping[str, Any], runs: Sequence[tuple[str, str, str]]) -> None:
    """Every run's protocol options make sense, or the plan fails before any job starts.

    A condition (or the run) may not set both ``play.steps`` and ``play.action_budget``; a
    condition played with ``reset_on_fail`` must have at least one game that declares the
    ``game_over`` probe, or it would reset nothing (a game without it is played without resets).
    """
    play = play_settings(config)
    if play["steps"] is not None and play["action_budget"] is not None:
        raise ConfigError(
            "play: set action_budget (GameWorld's length: N steps, no game-time cap) or steps "
            "(a step cap beside the game-time cap), not both"
        )
    run = run_protocol(config)
    games: dict[str, set[str]] = {}
    for corpus, _, condition in runs:
        games.setdefault(condition, set()).add(corpus)
    for condition, corpora in sorted(games.items()):
        parsed = Condition.parse(condition)
        check_condition_protocol(parsed)
        if not run.for_condition(parsed).reset_on_fail:
            continue
        if not any(GAME_OVER_PROBE in g.probes for c in corpora for g in corpus_games(config, c)):
            raise ConfigError(
                f"condition {condition!r} plays with reset_on_fail, but no game of its corpora "
                f"({', '.join(sorted(corpora))}) declares a {GAME_OVER_PROBE!r} probe: nothing "
                "would ever be reset (docs/harness.md)"
            )


def protocol_option(config: Mapping[str, Any]) -> str:
    """``playsuite play-shard``'s protocol options from the run's ``play`` settings (a
    condition's own ``+play.*`` settings are read from its name by the command)."""
    run = run_protocol(config)
    out = ""
    if run.action_budget is not None:
        out += f" --action-budget {run.action_budget}"
    if run.reset_on_fail:
        out += " --reset-on-fail"
    if run.realtime:
        out += " --realtime"
    return out


def check_runs(
    config: Mapping[str, Any], registry: Registry
) -> dict[tuple[str, str, str], list[str]]:
    """``{(corpus, preset, condition): sorted game ids}`` of the engine checks (none unless
    ``engine.checks`` is set): every check preset on every game of the check corpus."""
    checks = engine_checks(config, registry)
    if not checks:
        return {}
    games = sorted(g.id for g in corpus_games(config, checks.corpus))
    return {(checks.corpus, preset, checks.condition): games for preset in sorted(checks.presets)}


def shard_units(config: Mapping[str, Any], registry: Registry) -> list[ShardUnit]:
    """Every shard job of the plan, in a stable order: the main runs and ablations, then the
    engine checks (``check=True``); their prompt templates checked."""
    size = int(play_settings(config)["shard_size"])
    units = []
    paper, checks = run_games(config, registry), check_runs(config, registry)
    check_prompt_templates([*paper, *checks], registry)
    check_protocols(config, [*paper, *checks])
    for check, runs in ((False, paper), (True, checks)):
        for (corpus, preset, condition), games in runs.items():
            for i in range(0, len(games), size):
                shard = shard_key(i // size)
                chunk = tuple(games[i : i + size])
                units.append(ShardUnit(corpus, preset, condition, shard, chunk, check))
    return units


def game_blocks(config: Mapping[str, Any]) -> dict[str, dict[str, tuple[str, ...]]]:
    """``{corpus: {block: game ids}}``: each corpus cut like a main run's shards.

    A block is the unit the DAG tracks acquisition by: a play shard depends on the blocks that
    hold its games (one block for a main-run shard, whose games are exactly that block), not on
    one file per game. At paper scale that is ~3K edges instead of ~180K, which is most of what
    ``snakemake -n`` spends (benchmarks/plan_paper.py).
    """
    size = int(play_settings(config)["shard_size"])
    out = {}
    for corpus in config["corpora"]:
        ids = sorted(g.id for g in corpus_games(config, corpus))
        out[corpus] = {
            shard_key(i // size): tuple(ids[i : i + size]) for i in range(0, len(ids), size)
        }
    return out


def block_index(blocks: Mapping[str, Mapping[str, Sequence[str]]]) -> dict[tuple[str, str], str]:
    """``{(corpus, game): block}`` for :func:`game_blocks`'s result."""
    return {(c, g): b for c, by_block in blocks.items() for b, ids in by_block.items() for g in ids}


def blocks_of(unit: ShardUnit, index: Mapping[tuple[str, str], str]) -> list[str]:
    """Blocks of ``unit.corpus`` that hold the unit's games."""
    return sorted({index[(unit.corpus, game)] for game in unit.games})


def server_argv_option(config: Mapping[str, Any], preset: str) -> str:
    """`` --server-argv JSON`` for ``playsuite play-shard`` when ``play.server_argv`` is set.

    The override replaces `vllm serve` (e.g. the stand-in server where there is no GPU); its
    ``{preset}`` placeholder becomes the preset name, ``{uds}`` is left for the node runner.
    """
    argv = play_settings(config)["server_argv"]
    if not argv:
        return ""
    filled = fill_server_argv(argv, preset=preset)
    return " --server-argv " + shlex.quote(json.dumps(filled))


def fault_options(config: Mapping[str, Any]) -> str:
    """``playsuite play-shard``'s options for faults of the job (``--lock-wait``,
    ``--min-free-mb``, ``--ready-timeout``, ``--server-restarts``, ``--server-monitor``) from the
    ``play`` settings of the same names; a setting left out of the config is left to the
    command's default, which is the schema's."""
    play = play_settings(config)
    out = ""
    options = (
        ("lock_wait_s", "--lock-wait"),
        ("min_free_mb", "--min-free-mb"),
        ("server_ready_timeout_s", "--ready-timeout"),
        ("server_restarts", "--server-restarts"),
        ("server_monitor_s", "--server-monitor"),
    )
    for key, option in options:
        if play.get(key) is not None:
            out += f" {option} {play[key]}"
    return out


def sandbox_option(config: Mapping[str, Any]) -> str:
    """``playsuite play-shard``'s runtime options: the sandbox (``play.sandbox``,
    ``play.apptainer_image``) and the native games' clock rate (``play.native_clock_rate``)."""
    play = play_settings(config)
    out = f" --sandbox {play['sandbox']} --native-clock-rate {play['native_clock_rate']}"
    if play.get("apptainer_image"):
        out += f" --apptainer-image {play['apptainer_image']}"
    return out
