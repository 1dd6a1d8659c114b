"""The layout of ``results/``: the one place its paths are spelled, and parsed back.

The rules (through rules/common.smk), the planners and the job functions all take their paths
from here, so a file moved is moved in one place. Each pattern exists twice on purpose: as a
Snakemake pattern (``{wildcard}`` fields, what a rule's output declares) and as a function that
fills it in; parsing a path back (an episode directory, a play manifest) goes through
:class:`EpisodeKey` and :func:`parse_play_manifest`, never through an ad-hoc regex.

Paths are relative to the workflow's working directory (the repository root), as Snakemake
writes them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

RESULTS = "results"

# -- Snakemake patterns (rule outputs) ----------------------------------------------------------

LOGS = RESULTS + "/logs"
BENCHMARKS = RESULTS + "/benchmarks"
RUNS = RESULTS + "/runs"
RUN_DIR = RUNS + "/{corpus}/{preset}/{condition}"
EPISODE_DIR = RUN_DIR + "/{game}"
EPISODE_META = EPISODE_DIR + "/meta.json"
PLAY_MANIFEST = RUN_DIR + "/shards/{shard}.tsv"
PLAY_LOG_DIR = RESULTS + "/logs/play/{corpus}/{preset}/{condition}"
PLAY_COSTS = RESULTS + "/costs/{corpus}/{preset}/{condition}/{shard}.tsv"
JUDGEMENTS = RESULTS + "/judgements"
JUDGEMENT_DIR = JUDGEMENTS + "/{judge}/{corpus}/{preset}/{condition}"
JUDGEMENT = JUDGEMENT_DIR + "/{game}.json"
JUDGE_MANIFEST = JUDGEMENT_DIR + "/shards/{shard}.tsv"
SCORES = RESULTS + "/scores/{judge}.tsv"
GAMES_DIR = RESULTS + "/games"
#: A tiny random-weight model the engine checks build (models.yaml names it as its hf_id).
TINY_MODEL = RESULTS + "/engine/models/{arch}"
ACQUIRED = GAMES_DIR + "/{game}/acquired.json"
LAUNCH = GAMES_DIR + "/{game}/launch.json"
CONFORMANCE = GAMES_DIR + "/{game}/conformance.json"
CONFORMANCE_TABLE = RESULTS + "/conformance/{corpus}.tsv"
CONFORMANCE_SUMMARY = RESULTS + "/conformance/{corpus}.md"
ACQUIRED_BLOCK = GAMES_DIR + "/blocks/{corpus}/{block}.txt"
LAUNCH_BLOCK = GAMES_DIR + "/blocks/{corpus}/{block}.launch.tsv"
CATALOG = RESULTS + "/catalog"
CATALOG_DIR = CATALOG + "/{corpus}"
CATALOG_FILE = CATALOG_DIR + "/{name}"
CATALOG_TABLE = CATALOG_DIR + "/games.tsv"
#: The registry survey's tables, one per registry (playsuite.catalog.survey).
SURVEY = CATALOG + "/survey"
#: A registry's survey corpus: the catalog corpus whose stages the survey runs.
SURVEY_CORPUS = "survey-{source}"
TABLES = RESULTS + "/tables"
FIGURES = RESULTS + "/figures"
REPORT = RESULTS + "/report"
INSPECT = RESULTS + "/inspect"
#: A judged campaign's episodes as a Hugging Face dataset (playsuite.analysis.dataset).
DATASETS = RESULTS + "/datasets"
#: One results dashboard per judge's campaign, and pictures of its pages (README, docs/img).
DASHBOARD = RESULTS + "/dashboard"
#: The worker sweep of Figure 10b: one play shard per worker count, outside the campaign.
EFFICIENCY_RUN = RESULTS + "/efficiency/concurrency/w{workers}"
EFFICIENCY_MANIFEST = EFFICIENCY_RUN + "/manifest.tsv"
EFFICIENCY_RUNS = EFFICIENCY_RUN + "/runs"
EFFICIENCY_COSTS = EFFICIENCY_RUN + "/costs"
#: The judge-validation set (Table 10) and its judges' answers.
VALIDATION = RESULTS + "/validation"
VALIDATION_SAMPLE = VALIDATION + "/sample.tsv"
VALIDATION_RATERS = VALIDATION + "/raters.csv"
VALIDATION_VIDEOS = VALIDATION + "/videos"
VALIDATION_JUDGEMENT_DIR = VALIDATION + "/judgements/{judge}"
VALIDATION_JUDGE_MANIFEST = VALIDATION_JUDGEMENT_DIR + "/manifest.tsv"
VALIDATION_RATINGS = VALIDATION + "/judge_ratings.csv"
#: Trajectories as data (docs/horizon.md): a run's annotation index (the annotations lie beside
#: its episodes, ``horizon.json``), the question set, one preset's answers.
HORIZON = RESULTS + "/horizon"
HORIZON_INDEX = HORIZON + "/annotations/{corpus}/{preset}/{condition}.tsv"
HORIZON_QUESTIONS = HORIZON + "/questions.json"
HORIZON_ANSWERS = HORIZON + "/answers/{preset}.json"

#: The wildcards of the whole workflow, declared once (rules/common.smk). A play shard is
#: ``sNNNN``; a judge shard cut from episode targets is ``eNNNN`` (planning.judge).
WILDCARDS = {
    "shard": "[se][0-9]{4}",
    "preset": "[a-z0-9][a-z0-9._-]*",
    # k{K}-hz{HZ}-{variant}, then +{setting}={value} per further setting (playsuite.config)
    "condition": r"k[0-9]+-hz[0-9.]+-[a-z][a-z0-9_]*(\+[a-z_.]+=[A-Za-z0-9._-]+)*",
    "corpus": "[a-z0-9][a-z0-9_-]*",
    "game": "[a-z0-9]+(-[a-z0-9]+)*",
    "block": "s[0-9]{4}",  # an acquisition block (cut like a main run's shards)
    "judge": "[A-Za-z0-9._-]+",
    "ablation": "[a-z0-9][a-z0-9_-]*",
    "source": "debian|pypi|npm",  # a registry of the survey
}


#: The preset folder of episodes people played (``playsuite human play``; playsuite.human).
HUMAN_PRESET = "human"
#: The presets a play rule may play: every one but the people's, whose episodes exist only
#: because someone played them and are never replayed by the workflow.
PLAYED_PRESET = rf"(?!{HUMAN_PRESET}/){WILDCARDS['preset']}"


def _strip(path: str | os.PathLike[str]) -> PurePosixPath:
    """``path`` without a leading ``./`` or trailing ``/``, as the parsers expect it."""
    text = str(path)
    while text.startswith("./"):
        text = text[2:]
    return PurePosixPath(text.rstrip("/"))


def log_dir(*parts: str) -> str:
    """A folder of logs ``results/logs/{parts joined by /}``; a part may be a ``{wildcard}``."""
    return "/".join((LOGS, *parts))


def benchmark(*parts: str) -> str:
    """A rule's benchmark ``results/benchmarks/{parts joined by /}.tsv``."""
    return "/".join((BENCHMARKS, *parts)) + ".tsv"


def log(*parts: str) -> str:
    """A rule's log ``results/logs/{parts joined by /}.log``; a part may be a ``{wildcard}``."""
    return log_dir(*parts) + ".log"


# -- episodes ----------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class EpisodeKey:
    """One episode of the plan: a game played by a preset under a condition, in a corpus."""

    corpus: str
    preset: str
    condition: str
    game: str

    @property
    def run_dir(self) -> str:
        return run_dir(self.corpus, self.preset, self.condition)

    @property
    def dir(self) -> str:
        return f"{self.run_dir}/{self.game}"

    @property
    def meta(self) -> str:
        return f"{self.dir}/meta.json"

    def judgement(self, judge: str) -> str:
        """The judgement file of this episode by ``judge``."""
        return f"{judgement_dir(judge, self.corpus, self.preset, self.condition)}/{self.game}.json"

    @classmethod
    def from_dir(cls, path: str | os.PathLike[str]) -> EpisodeKey:
        """The key of an episode directory (or its ``meta.json``): ``.../runs/{corpus}/{preset}/
        {condition}/{game}``. Only the last four parts count, so an absolute path or one under a
        copy of the repository parses too."""
        key = cls.parse(path)
        if key is None:
            raise ValueError(f"not an episode directory results/runs/C/P/K/G: {path}")
        return key

    @classmethod
    def parse(cls, path: str | os.PathLike[str]) -> EpisodeKey | None:
        """:meth:`from_dir`, or None for a path that is no episode directory."""
        parts = _strip(path).parts
        if parts and parts[-1] == "meta.json":
            parts = parts[:-1]
        if len(parts) < 5 or parts[-5] != "runs":
            return None
        corpus, preset, condition, game = parts[-4:]
        return cls(corpus, preset, condition, game)


# -- play ----------------------------------------------------------------------------------------


def run_dir(corpus: str, preset: str, condition: str) -> str:
    return RUN_DIR.format(corpus=corpus, preset=preset, condition=condition)


def play_manifest(corpus: str, preset: str, condition: str, shard: str) -> str:
    return PLAY_MANIFEST.format(corpus=corpus, preset=preset, condition=condition, shard=shard)


@dataclass(frozen=True)
class ManifestKey:
    """A play shard manifest's place: ``(corpus, preset, condition, shard)``."""

    corpus: str
    preset: str
    condition: str
    shard: str

    @property
    def run(self) -> tuple[str, str, str]:
        return (self.corpus, self.preset, self.condition)


def parse_play_manifest(path: str | os.PathLike[str]) -> ManifestKey | None:
    """The key of a play shard manifest ``results/runs/C/P/K/shards/{shard}.tsv``, or None."""
    parts = _strip(path).parts
    if len(parts) != 7 or parts[:2] != (RESULTS, "runs") or parts[5] != "shards":
        return None
    if not parts[6].endswith(".tsv"):
        return None
    return ManifestKey(parts[2], parts[3], parts[4], parts[6].removesuffix(".tsv"))


def play_manifest_run_dir(manifest: str | os.PathLike[str]) -> str:
    """The run directory a play manifest lies in (its episodes are beside ``shards/``)."""
    return str(_strip(manifest).parent.parent)


def play_log_dir(corpus: str, preset: str, condition: str) -> str:
    return PLAY_LOG_DIR.format(corpus=corpus, preset=preset, condition=condition)


def play_costs(corpus: str, preset: str, condition: str, shard: str) -> str:
    return PLAY_COSTS.format(corpus=corpus, preset=preset, condition=condition, shard=shard)


def acquired(game: str) -> str:
    return ACQUIRED.format(game=game)


def launch(game: str) -> str:
    return LAUNCH.format(game=game)


def launch_block(corpus: str, block: str) -> str:
    return LAUNCH_BLOCK.format(corpus=corpus, block=block)


def conformance(game: str) -> str:
    return CONFORMANCE.format(game=game)


def acquired_block(corpus: str, block: str) -> str:
    return ACQUIRED_BLOCK.format(corpus=corpus, block=block)


# -- judge ---------------------------------------------------------------------------------------


def judgement_dir(judge: str, corpus: str, preset: str, condition: str) -> str:
    return JUDGEMENT_DIR.format(judge=judge, corpus=corpus, preset=preset, condition=condition)


def judge_manifest(judge: str, corpus: str, preset: str, condition: str, shard: str) -> str:
    return JUDGE_MANIFEST.format(
        judge=judge, corpus=corpus, preset=preset, condition=condition, shard=shard
    )


def judge_costs_dir(folder: str, judge: str) -> str:
    """The folder of ``judge``'s cost records under ``folder`` (``analysis.judge_costs``)."""
    return f"{folder}/{judge}"


def judge_costs(folder: str, judge: str, corpus: str, preset: str, condition: str, shard: str):
    """A judge job's cost record under ``folder`` (``analysis.judge_costs``)."""
    return f"{judge_costs_dir(folder, judge)}/{corpus}/{preset}/{condition}/{shard}.tsv"


def judgements(judge: str) -> str:
    """Every judgement of ``judge``: ``results/judgements/{judge}``."""
    return f"{JUDGEMENTS}/{judge}"


def scores(judge: str) -> str:
    return SCORES.format(judge=judge)


# -- efficiency (Figure 10) and judge validation (Table 10) --------------------------------------


def efficiency_costs(workers: int | str) -> str:
    """The cost records' folder of the worker sweep's run with ``workers`` workers."""
    return EFFICIENCY_COSTS.format(workers=workers)


def efficiency_manifest(workers: int | str) -> str:
    return EFFICIENCY_MANIFEST.format(workers=workers)


def horizon_index(corpus: str, preset: str, condition: str) -> str:
    return HORIZON_INDEX.format(corpus=corpus, preset=preset, condition=condition)


def horizon_answers(preset: str) -> str:
    return HORIZON_ANSWERS.format(preset=preset)


def validation_judge_manifest(judge: str) -> str:
    return VALIDATION_JUDGE_MANIFEST.format(judge=judge)


# -- catalog, tables, figures --------------------------------------------------------------------

_CATALOG_TABLE = re.compile(
    r"^results/catalog/(?P<corpus>" + WILDCARDS["corpus"] + r")/games\.tsv$"
)


def catalog_file(corpus: str, name: str) -> str:
    return CATALOG_FILE.format(corpus=corpus, name=name)


def survey_file(name: str) -> str:
    return f"{SURVEY}/{name}"


def catalog_table_corpus(path: str | os.PathLike[str]) -> str | None:
    """The corpus whose curated table (rule catalog_table) ``path`` is, or None."""
    match = _CATALOG_TABLE.match(str(_strip(path)))
    return match["corpus"] if match else None


def table(name: str, ext: str, judge: str | None = None) -> str:
    """``results/tables[/{judge}]/{name}.{ext}``."""
    folder = f"{TABLES}/{judge}" if judge else TABLES
    return f"{folder}/{name}.{ext}"


def figure(name: str, ext: str, judge: str | None = None) -> str:
    """``results/figures[/{judge}]/{name}.{ext}``."""
    folder = f"{FIGURES}/{judge}" if judge else FIGURES
    return f"{folder}/{name}.{ext}"


def report(judge: str, ext: str) -> str:
    return f"{REPORT}/{judge}/reproduction.{ext}"


def inspect_dir(judge: str) -> str:
    return f"{INSPECT}/{judge}"


def dataset_dir(judge: str) -> str:
    """The dataset folder of the episodes ``judge`` scored: ``results/datasets/{judge}``."""
    return f"{DATASETS}/{judge}"


def dashboard(judge: str, name: str = "index.html") -> str:
    """``results/dashboard/{judge}/{name}``: the campaign's dashboard page (``index.html``) or a
    picture beside it (``inspector.png``, ``dashboard.png``)."""
    return f"{DASHBOARD}/{judge}/{name}"
