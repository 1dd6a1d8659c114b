"""The workflow's horizon stage (rules/horizon.smk; docs/horizon.md): what it annotates and who
answers, and the job functions its scripts call.

``horizon:`` in the configuration names the annotator, the runs whose episodes it annotates
(``corpus/preset/condition``), the presets that answer the question set and the judge whose
scores give online progress. A run's episodes are those its play manifests list (planned by this
workflow, or else found on disk when the job runs), or, for a run recorded elsewhere without
any (a person's play), every episode directory under it with a ``meta.json``.
"""

from __future__ import annotations

import glob
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playsuite.config import ConfigError
from playsuite.planning import paths
from playsuite.planning.play import tiny_model
from playsuite.records.episode import META_NAME


@dataclass(frozen=True)
class HorizonPlan:
    """The horizon section of a run, checked against the registry."""

    settings: dict[str, Any]
    annotator: str
    runs: tuple[tuple[str, str, str], ...]
    presets: tuple[str, ...]
    judge: str
    entries: Mapping[str, Any]

    def indexes(self) -> list[str]:
        return [paths.horizon_index(*run) for run in self.runs]

    def answers(self) -> list[str]:
        return [paths.horizon_answers(p) for p in self.presets]

    def model(self, name: str) -> list[str]:
        """The tiny model folder serving ``name`` needs built, if any."""
        return tiny_model(self.entries[name])

    def resource(self, name: str, key: str, default: Any) -> Any:
        entry = self.entries[name]
        if key == "gpu":
            return entry.gpus
        return (entry.resources or {}).get(key, default)


def horizon_plan(config: Mapping[str, Any], registry: Any) -> HorizonPlan | None:
    """The plan of ``config["horizon"]`` (None when absent), its names checked."""
    from playsuite.horizon.annotate import horizon_settings

    section = config.get("horizon")
    if not section:
        return None
    settings = horizon_settings(section)
    annotator = settings.get("annotator")
    if not annotator:
        raise ConfigError("horizon: an annotator is required (a preset or judge of the registry)")
    names = [annotator, *settings["presets"]]
    entries = {}
    for name in names:
        entry = registry.presets.get(name) or registry.judges.get(name)
        if entry is None or not entry.uses_model:
            raise ConfigError(
                f"horizon: {name!r} is not a model (served or hosted) preset or judge of the "
                "registry"
            )
        entries[name] = entry
    judge = settings["judge"] or registry.default_judge
    registry.judge(judge)
    runs = tuple(tuple(run.split("/")) for run in settings["runs"])
    if "seed" not in section and "seed" in config:
        settings["seed"] = int(config["seed"])
    return HorizonPlan(settings, annotator, runs, tuple(settings["presets"]), judge, entries)


def run_manifests(planned: Sequence[str], corpus: str, preset: str, condition: str) -> list[str]:
    """The play manifests of a run that this workflow plans (an annotation job's inputs). A run
    it does not plan is read as it is on disk when the job runs (:func:`run_episodes`)."""
    folder = paths.run_dir(corpus, preset, condition)
    return sorted(m for m in planned if m.startswith(folder + "/"))


def run_episodes(run_dir: str | os.PathLike[str], manifests: Sequence[str]) -> list[str]:
    """The episode directories of a run: the games of its manifests (``manifests``, else those
    on disk), else, for a run recorded without any, every directory holding a ``meta.json``."""
    from playsuite.records.manifest import read_manifest

    manifests = list(manifests) or sorted(glob.glob(f"{run_dir}/shards/*.tsv"))
    if manifests:
        games = sorted({row.game for m in manifests for row in read_manifest(m)})
        return [str(Path(run_dir) / g) for g in games]
    return sorted(str(p.parent) for p in Path(run_dir).glob(f"*/{META_NAME}"))


def annotate_run_job(
    annotator: str,
    run_dir: str,
    manifests: Sequence[str],
    index: str,
    *,
    settings: Mapping[str, Any],
    catalogs: Mapping[str, str],
    games_dir: str,
    vllm: str,
    log: str,
) -> dict[str, int]:
    """Annotate a run's episodes (one model server for the run), then write its index."""
    from playsuite.horizon.run import ServeOptions, annotate_episodes

    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    episodes = run_episodes(run_dir, manifests)
    options = ServeOptions(
        server_argv=settings["server_argv"],
        vllm=vllm,
        server_log=log + ".server",
        ready_timeout_s=float(settings["ready_timeout_s"]),
    )
    counts = annotate_episodes(
        annotator, episodes, settings, options, catalogs=catalogs, games_dir=games_dir, index=index
    )
    logging.info("annotated %s: %s", run_dir, counts)
    return counts


def questions_job(indexes: Sequence[str], out: str, settings: Mapping[str, Any]) -> dict[str, int]:
    from playsuite.horizon.questions import build_questions, load_annotated
    from playsuite.records.horizon import read_annotation_index, write_questions

    files = [row["annotation"] for index in indexes for row in read_annotation_index(index)]
    items, failed = load_annotated(files)
    doc = build_questions(
        items, int(settings["seed"]), float(settings["sample_fps"]), settings["max_per_task"]
    )
    write_questions(out, doc)
    print(
        f"{len(items)} annotated episodes ({failed} failed left out): {doc['counts']}",
        file=sys.stderr,
    )
    return doc["counts"]


def answer_job(
    preset: str, questions: str, out: str, *, settings: Mapping[str, Any], vllm: str, log: str
) -> dict[str, int]:
    from playsuite.horizon.run import ServeOptions, answer_file

    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    options = ServeOptions(
        server_argv=settings["server_argv"],
        vllm=vllm,
        server_log=log + ".server",
        ready_timeout_s=float(settings["ready_timeout_s"]),
    )
    counts = answer_file(preset, questions, out, settings, options)
    logging.info("answered by %s: %s", preset, counts)
    return counts


def accuracy_job(answers: Sequence[str], outputs: Mapping[str, str], bootstrap: Mapping[str, Any]):
    from playsuite.analysis.bootstrap import BootstrapSpec
    from playsuite.horizon.tables import accuracy_table, write_table
    from playsuite.records.horizon import read_answers

    spec = BootstrapSpec(
        resamples=int(bootstrap["resamples"]),
        confidence=float(bootstrap["confidence"]),
        seed=int(bootstrap["seed"]),
    )
    table = accuracy_table([read_answers(a) for a in answers], spec)
    for path in outputs.values():
        write_table(table, path)


def correlation_job(accuracy: str, scores: str, outputs: Mapping[str, str]) -> None:
    import pandas as pd

    from playsuite.horizon.tables import correlation_table, write_table
    from playsuite.records.scores import read_scores_file

    table = correlation_table(pd.read_csv(accuracy, sep="\t"), read_scores_file(scores))
    for path in outputs.values():
        write_table(table, path)
