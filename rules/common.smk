# Helpers shared by the workflow: configuration lookups and target lists (functions only).
# Each stage owns one *_targets() function below; final_outputs() is the default target.

import os
import re
import sys
from pathlib import Path

from playsuite.analysis.settings import analysis_settings
from playsuite.config import Condition, load_validated
from playsuite.inference.engine import TINY_ARCHITECTURES
from playsuite.planning.play import (
    block_index,
    blocks_of,
    corpus_games,
    engine_checks,
    engine_vllm,
    fault_options,
    game_blocks,
    play_settings,
    require_corpus_tables,
    sandbox_option,
    server_argv_option as _server_argv_option,
    shard_units,
    tiny_model,
)
from playsuite.registry import parse_registry

# analysis.scores: judge -> an existing scores table. Then the workflow is the analysis stage
# alone: no corpus table is read, nothing is played, judged or curated (docs/analysis.md).
SCORES_GIVEN = analysis_settings(config).scores
if not SCORES_GIVEN:
    # before anything reads them: say what builds a missing one
    require_corpus_tables(config)
# The judges whose results/scores/{judge}.tsv the judge stage may write are all but those of
# analysis.scores: a given table at that path is read as it is, never rebuilt from (no)
# judgements. The look-ahead names the ".tsv" that follows, as a judge name may hold dots.
_GIVEN = "|".join(re.escape(j) for j in SCORES_GIVEN)
JUDGE_SCORES_WILDCARD = (
    rf"(?!(?:{_GIVEN})\.tsv$)" if SCORES_GIVEN else ""
) + "[A-Za-z0-9._-]+"
REGISTRY = parse_registry(load_validated(config["models"], "models"))

for _preset in config["presets"]:
    REGISTRY.preset(_preset)
for _judge in config["judges"]:
    REGISTRY.judge(_judge)
CONDITIONS = {name: Condition.parse(name) for name in config["conditions"]}
# The command line of the interpreter running this workflow, which has playsuite installed
# (this file imports it): jobs need no activated environment to find the `playsuite` command.
PLAYSUITE = f"{sys.executable} -m playsuite.cli"
# Image of the CPU-only rules under --software-deployment-method apptainer
# (containers/game-sandbox.def). Play, launch and judge shard jobs run on the host: they start
# the model server and the per-game sandboxes themselves (docs/cluster.md).
PLAYSUITE_IMAGE = config.get("container", "containers/game-sandbox.sif")
PLAY = play_settings(config)
# The vLLM command of play and judge jobs (engine.vllm).
ENGINE_VLLM = engine_vllm(config)
# Engine checks (engine.checks): tiny random-weight presets through the real engine, apart from
# the paper's runs (their shards are ShardUnit.check; see engine_check_targets()).
ENGINE_CHECKS = engine_checks(config, REGISTRY)
PLAY_UNITS = [] if SCORES_GIVEN else shard_units(config, REGISTRY)
PLAY_UNIT_BY_KEY = {(u.corpus, u.preset, u.condition, u.shard): u for u in PLAY_UNITS}
# acquisition blocks (rule acquired_block)
GAME_BLOCKS = {} if SCORES_GIVEN else game_blocks(config)
GAME_BLOCK_OF = block_index(GAME_BLOCKS)
CORPUS_TABLE_OF_GAME = {}  # game id -> table of the first corpus that lists it
for _corpus in [] if SCORES_GIVEN else reversed(list(config["corpora"])):
    for _game in corpus_games(config, _corpus):
        CORPUS_TABLE_OF_GAME[_game.id] = config["corpora"][_corpus]["table"]


def play_unit(wc):
    """The play shard (playsuite.planning.play.ShardUnit) named by a rule's wildcards."""
    return PLAY_UNIT_BY_KEY[(wc.corpus, wc.preset, wc.condition, wc.shard)]


def server_argv_option(wc):
    """play-shard's ``--server-argv`` option from ``play.server_argv`` (empty when unset, and for
    engine checks, which always start the real engine)."""
    return "" if play_unit(wc).check else _server_argv_option(config, wc.preset)


def play_model(wc):
    """The tiny model folder a play shard needs built (rule build_tiny_model), if any."""
    return tiny_model(REGISTRY.preset(wc.preset))


def judge_model(wc):
    """The tiny model folder a judge shard needs built (rule build_tiny_model), if any."""
    return tiny_model(REGISTRY.judge(wc.judge))


def preset_resource(preset, name, default):
    """A Slurm resource of a preset's jobs (models.yaml `resources`); CPU jobs for baselines."""
    spec = REGISTRY.preset(preset)
    return spec.resources.get(name, default) if spec.needs_server else default


def corpus_of_game(game):
    """The table of the first configured corpus that lists ``game``."""
    try:
        return CORPUS_TABLE_OF_GAME[game]
    except KeyError:
        raise ValueError(f"game {game!r} is in no configured corpus") from None


def planned_or_present(planned, folder, pattern):
    """Inputs that this run makes (``planned``) plus the files matching ``pattern`` under
    ``folder`` that exist already and that no job of this run makes (the catalog of an earlier
    run, a benchmark file one copied in). Taking only what exists at plan time would change a
    rule's input set once this run made the file, and a second plan would redo the rule.
    """
    planned = sorted({os.path.normpath(p) for p in planned})
    present = {
        os.path.normpath(str(p)) for p in Path(folder).glob(pattern) if p.is_file()
    }
    return planned + sorted(present - set(planned))


def catalog_files(name):
    """This run's catalog output ``name`` of every curated corpus; none when analysis.scores
    makes the workflow the analysis stage alone."""
    if SCORES_GIVEN:
        return []
    return [
        f"results/catalog/{corpus}/{name}"
        for corpus in config.get("catalog", {}).get("corpora", {})
    ]


def catalog_targets():
    """Catalog curation outputs (funnel, Tables 4 and 5, curated tables, genre figure)."""
    names = (
        "games.tsv",
        "funnel.csv",
        "funnel.md",
        "funnel.tex",
        "exclusions.csv",
        "technical_exclusions.md",
        "harm_categories.md",
        "genre_distribution.csv",
        "genre_distribution.pdf",
        "genre_distribution.png",
    )
    by_name = [catalog_files(name) for name in names]
    return [path for paths in zip(*by_name) for path in paths]


def play_targets():
    """Shard manifests of every play job (each lists its episodes; see rules/play.smk), and the
    launch validation of every game whose runtime exists (playsuite.runtimes.factory).
    """
    from playsuite.runtimes.factory import RUNTIMES

    if SCORES_GIVEN:
        return []
    validated = sorted(
        {
            f"results/games/{game.id}/launch.json"
            for corpus in config["corpora"]
            for game in corpus_games(config, corpus)
            if game.runtime in RUNTIMES
        }
    )
    return [unit.manifest for unit in PLAY_UNITS if not unit.check] + validated


def judge_targets():
    """Scores tables of every judge (rules/judge.smk): on once play_targets() lists episodes."""
    return JUDGE_PLAN.scores_targets()


def engine_check_play_targets():
    """Shard manifests of the engine checks' play jobs (judged by the check judge only)."""
    return [unit.manifest for unit in PLAY_UNITS if unit.check]


def engine_check_targets():
    """The engine-check table (rules/analysis.smk), which needs every check shard played and
    judged; nothing without engine.checks."""
    if not ENGINE_CHECKS:
        return []
    return ["results/tables/engine_checks.csv", "results/tables/engine_checks.md"]


def validation_play_manifests():
    """The paper runs' play manifests the validation set is drawn from (rules/validation.smk)."""
    return [
        unit.manifest
        for unit in PLAY_UNITS
        if not unit.check
        and unit.corpus in VALIDATION.per_corpus
        and unit.condition in VALIDATION.conditions
    ]


def validation_targets():
    """The judge-validation set and its judges' answers (rules/validation.smk); nothing without
    a validation: section. The agreement table is among analysis_figure_targets()."""
    if not VALIDATION:
        return []
    return [
        "results/validation/sample.tsv",
        "results/validation/raters.csv",
        "results/validation/judge_ratings.csv",
    ]


def analysis_targets():
    """Tables, figures and the report inputs."""
    return [
        "results/tables/models.csv",
        "results/tables/models.md",
        "results/tables/models.tex",
    ] + analysis_figure_targets()


def analysis_judges():
    """The judges whose scores the analysis reads: analysis.scores' when given, else `judges`."""
    return list(SCORES_GIVEN) or list(config["judges"])


def scores_table(wildcards):
    """The scores table of a judge: the given one (analysis.scores), else the judge stage's."""
    return SCORES_GIVEN.get(wildcards.judge, f"results/scores/{wildcards.judge}.tsv")


def analysis_figure_targets():
    """Every statistic's table and figure per configured judge (rules/analysis.smk).

    Built from scores_table(): results/scores/{judge}.tsv, which the judge stage makes, or the
    table analysis.scores gives.
    """
    out = ["results/figures/efficiency.pdf", "results/figures/efficiency.png"]
    for judge in analysis_judges():
        tables = f"results/tables/{judge}"
        figures = f"results/figures/{judge}"
        for stem in ("main", "genres", "genre_rank_range", "stability", "cost"):
            out += [f"{tables}/{stem}.{ext}" for ext in ("csv", "md", "tex")]
        out += [f"{tables}/genre_rank_agreement.{ext}" for ext in ("csv", "md")]
        for stem in ("stability", "cost"):
            out += [f"{figures}/{stem}.{ext}" for ext in ("pdf", "png")]
        for corpus in config["corpora"]:
            out += [f"{figures}/genre_heatmap_{corpus}.{ext}" for ext in ("pdf", "png")]
        for name in ABLATIONS:
            out += [f"{figures}/ablation_{name}.{ext}" for ext in ("pdf", "png")]
            out += [f"{tables}/ablation_{name}.{ext}" for ext in ("csv", "md")]
        out += [f"results/report/{judge}/reproduction.{ext}" for ext in ("csv", "md")]
        out.append(f"results/inspect/{judge}")
    if ANALYSIS.ratings or VALIDATION:
        out += [f"results/tables/agreement.{ext}" for ext in ("csv", "md", "tex")]
    return out


def final_outputs():
    """Everything the default target builds (with analysis.scores: the analysis only)."""
    if SCORES_GIVEN:
        return analysis_targets()
    return (
        catalog_targets()
        + play_targets()
        + judge_targets()
        + engine_check_targets()
        + validation_targets()
        + analysis_targets()
    )
