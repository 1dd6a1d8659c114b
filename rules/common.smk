# Shared by the workflow: the run's planner (PLAN), the wildcard constraints of every rule, and
# target lists. Each stage owns one *_targets() function below; final_outputs() is the default
# target. Paths under results/ come from playsuite.planning.paths (docs/workflow.md).

import os
import re
import sys
from pathlib import Path

from playsuite.inference.engine import TINY_ARCHITECTURES
from playsuite.planning import paths
from playsuite.planning.horizon_jobs import horizon_plan, run_manifests
from playsuite.planning.plan import Plan
from playsuite.planning.play import (
    corpus_games,
    fault_options,
    sandbox_option,
    server_argv_option as _server_argv_option,
    tiny_model,
)

# The planner of this run (playsuite.planning.plan): it reads the corpus tables, the registry
# and the ablation files once; the rules ask it. With analysis.scores (judge -> an existing
# scores table) the workflow is the analysis stage alone: nothing is played, judged or curated
# (docs/analysis.md).
PLAN = Plan.from_config(config)
SCORES_GIVEN = PLAN.scores_given
REGISTRY = PLAN.registry
PLAY = PLAN.play
# The vLLM command of play and judge jobs (engine.vllm).
ENGINE_VLLM = PLAN.vllm
# Engine checks (engine.checks): tiny random-weight presets through the real engine, apart from
# the paper's runs (their shards are ShardUnit.check; see engine_check_targets()).
ENGINE_CHECKS = PLAN.checks
# The command line of the interpreter running this workflow, which has playsuite installed
# (this file imports it): jobs need no activated environment to find the `playsuite` command.
PLAYSUITE = f"{sys.executable} -m playsuite.cli"
# Image of the CPU-only rules under --software-deployment-method apptainer
# (containers/game-sandbox.def). Play, launch and judge shard jobs run on the host: they start
# the model server and the per-game sandboxes themselves (docs/cluster.md).
PLAYSUITE_IMAGE = config.get("container", "containers/game-sandbox.sif")
# The judges whose results/scores/{judge}.tsv the judge stage may write are all but those of
# analysis.scores: a given table at that path is read as it is, never rebuilt from (no)
# judgements. The look-ahead names the ".tsv" that follows, as a judge name may hold dots.
_GIVEN = "|".join(re.escape(j) for j in SCORES_GIVEN)
JUDGE_SCORES_WILDCARD = (
    rf"(?!(?:{_GIVEN})\.tsv$)" if SCORES_GIVEN else ""
) + "[A-Za-z0-9._-]+"


# Every wildcard of the workflow, declared once (playsuite.planning.paths.WILDCARDS): play and
# judge shards share `shard` (sNNNN: a play shard; eNNNN: a judge shard cut from episodes).
wildcard_constraints:
    **paths.WILDCARDS,


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
        paths.catalog_file(corpus, name)
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
    return PLAN.paper_manifests() + PLAN.launch_targets()


def judge_targets():
    """Scores tables of every judge (rules/judge.smk): on once play_targets() lists episodes."""
    return JUDGE_PLAN.scores_targets()


def engine_check_play_targets():
    """Shard manifests of the engine checks' play jobs (judged by the check judge only)."""
    return PLAN.check_manifests()


def engine_check_targets():
    """The engine-check table (rules/analysis.smk), which needs every check shard played and
    judged; nothing without engine.checks."""
    if not ENGINE_CHECKS:
        return []
    return [paths.table("engine_checks", ext) for ext in ("csv", "md")]


def validation_play_manifests():
    """The paper runs' play manifests the validation set is drawn from (rules/validation.smk)."""
    return [
        unit.manifest
        for unit in PLAN.units
        if not unit.check
        and unit.corpus in VALIDATION.per_corpus
        and unit.condition in VALIDATION.conditions
    ]


def validation_targets():
    """The judge-validation set and its judges' answers (rules/validation.smk); nothing without
    a validation: section. The agreement table is among analysis_figure_targets()."""
    if not VALIDATION:
        return []
    return [paths.VALIDATION_SAMPLE, paths.VALIDATION_RATERS, paths.VALIDATION_RATINGS]


def analysis_targets():
    """Tables, figures and the report inputs."""
    models = [paths.table("models", ext) for ext in ("csv", "md", "tex")]
    return models + analysis_figure_targets()


def analysis_judges():
    """The judges whose scores the analysis reads: analysis.scores' when given, else `judges`."""
    return list(SCORES_GIVEN) or list(config["judges"])


def scores_table(wildcards):
    """The scores table of a judge: the given one (analysis.scores), else the judge stage's."""
    return SCORES_GIVEN.get(wildcards.judge, paths.scores(wildcards.judge))


def ablation_judges(name):
    """The judges an ablation's table and figure are made for: every judge analysed, or for an
    ablation over judges its reference judge alone (it reads all the judges it compares).
    """
    ab = ABLATION_DEFS[name]
    if ab.over_judges:
        return [ab.reference_value] if ab.reference_value in analysis_judges() else []
    return analysis_judges()


def ablation_scores_tables(wildcards):
    """The scores tables an ablation reads: its judge's, or each compared judge's in order."""
    ab = ABLATION_DEFS[wildcards.ablation]
    judges = ab.values if ab.over_judges else [wildcards.judge]
    return [SCORES_GIVEN.get(judge, paths.scores(judge)) for judge in judges]


def judge_figures(judge):
    """The stems of the figures `all` makes for `judge` (results/figures/{judge}/)."""
    figures = ["stability", "cost"]
    figures += [f"genre_heatmap_{corpus}" for corpus in config["corpora"]]
    figures += [
        f"ablation_{name}" for name in ABLATIONS if judge in ablation_judges(name)
    ]
    return figures


def dashboard_figures(wildcards):
    """The PNGs a judge's dashboard shows: Figure 10 (efficiency), then the judge's figures,
    then any other PNG already in its folder that no job of this run makes (the task figure,
    built on request)."""
    judge = wildcards.judge
    planned = [paths.figure(stem, "png", judge) for stem in judge_figures(judge)]
    folder = os.path.dirname(paths.figure("x", "png", judge))
    present = {
        os.path.normpath(str(p)) for p in Path(folder).glob("*.png") if p.is_file()
    }
    planned = [os.path.normpath(p) for p in planned]
    extra = sorted(present - set(planned))
    return [paths.figure("efficiency", "png")] + planned + extra


def analysis_figure_targets():
    """Every statistic's table and figure per configured judge (rules/analysis.smk).

    Built from scores_table(): results/scores/{judge}.tsv, which the judge stage makes, or the
    table analysis.scores gives.
    """
    out = [paths.figure("efficiency", ext) for ext in ("pdf", "png")]
    for judge in analysis_judges():
        for stem in ("main", "genres", "genre_rank_range", "stability", "cost"):
            out += [paths.table(stem, ext, judge) for ext in ("csv", "md", "tex")]
        out += [
            paths.table("genre_rank_agreement", ext, judge) for ext in ("csv", "md")
        ]
        mine = [name for name in ABLATIONS if judge in ablation_judges(name)]
        for stem in judge_figures(judge):
            out += [paths.figure(stem, ext, judge) for ext in ("pdf", "png")]
        for name in mine:
            out += [
                paths.table(f"ablation_{name}", ext, judge) for ext in ("csv", "md")
            ]
        out += [paths.report(judge, ext) for ext in ("csv", "md")]
        out.append(paths.inspect_dir(judge))
        out.append(paths.dashboard(judge))
    if ANALYSIS.ratings or VALIDATION:
        out += [paths.table("agreement", ext) for ext in ("csv", "md", "tex")]
    return out


# Trajectories as data (horizon:, rules/horizon.smk): None unless configured.
HORIZON = horizon_plan(config, REGISTRY)


def horizon_targets():
    """The horizon stage's tables (rule horizon; not part of final_outputs)."""
    if not HORIZON:
        return []
    return [
        paths.table("horizon_accuracy", "tsv"),
        paths.table("horizon_correlation", "tsv"),
    ]


def horizon_run_manifests(wc):
    """The play manifests of a run to annotate that this workflow plans (none for a run
    recorded elsewhere: its job reads it from disk)."""
    return run_manifests(
        PLAN.paper_manifests() + PLAN.check_manifests(),
        wc.corpus,
        wc.preset,
        wc.condition,
    )


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
