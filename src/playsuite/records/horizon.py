"""The multi-horizon files (docs/horizon.md): an episode's annotation, the offline question set,
and one preset's answers to it.

- ``horizon.json`` beside an episode's ``meta.json``: GameHorizon's three-level pyramid of that
  episode, short-horizon operations (clips of the trace, each with its actions, sampled frames
  and an instruction), medium-horizon goals and long-horizon strategies (each a run of
  consecutive children one level down, with an instruction). A failed annotation keeps its
  ``error`` and may hold no levels.
- the question set: four-option multiple-choice questions (tasks ``T1``, ``T2``, ``T3`` and
  their diagnostic variants, :data:`TASKS`) with the frames they show, named by episode
  directory and sample index.
- the annotation index of a run (TSV): one row per episode, its annotation file and status, the
  one output of a workflow annotation job (the annotations are written beside the episodes).
- answers: one preset's choice for each question, ``correct`` or not, and whether the request
  failed (a failed answer counts as wrong, as an unmatched answer does in GameHorizon).

All three are JSON documents checked against ``horizon.schema.json`` (one ``$defs`` entry each),
and the annotation also for what a schema cannot say: ids unique, every level a partition of the
one below into runs of consecutive items, in order. Each carries ``format``
(:data:`HORIZON_FORMAT`); a newer one is refused.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from playsuite.files import atomic_open, read_json, write_json_atomic
from playsuite.records.base import RecordError, check_format

#: The annotation's file name in an episode directory.
ANNOTATION_NAME = "horizon.json"
#: Version of the three documents this code writes (and the newest it reads).
HORIZON_FORMAT = 1
#: Question tasks: next action with / without the instruction, top-down decomposition,
#: bottom-up abstraction, cross-horizon consistency.
TASKS = ("T1", "T1-frames", "T1-multi", "T1-next", "T2", "T2-up", "T3", "T3-text")
#: The pyramid's levels, bottom up, as the annotation's keys.
LEVELS = ("operations", "goals", "strategies")


class HorizonError(RecordError):
    """A horizon file that does not hold what its contract says."""


@cache
def horizon_schema() -> dict[str, Any]:
    """The schema document (its ``$defs`` hold ``annotation``, ``questions``, ``answers``)."""
    text = resources.files("playsuite.records").joinpath("horizon.schema.json").read_text()
    return json.loads(text)


@cache
def _validator(kind: str) -> jsonschema.Draft202012Validator:
    schema = horizon_schema()
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{kind}", "$defs": schema["$defs"]})


def _check(kind: str, obj: Any, file: str | os.PathLike[str]) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise HorizonError(file, f"a {kind} file must hold a JSON object")
    try:
        check_format(file, obj.get("format"), HORIZON_FORMAT, kind)
    except RecordError as exc:
        raise HorizonError(exc.file, str(exc).removeprefix(f"{exc.file}: ")) from None
    errors = sorted(_validator(kind).iter_errors(obj), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(root)"
        raise HorizonError(file, f"{where}: {errors[0].message}")
    return obj


def _check_level(
    file: str | os.PathLike[str], name: str, spans: Sequence[Mapping[str, Any]], below: list[str]
) -> None:
    """``spans`` cover the ids ``below`` exactly once, in order, each a consecutive run."""
    ids = [s["id"] for s in spans]
    if len(set(ids)) != len(ids):
        raise HorizonError(file, f"{name}: ids are not unique")
    covered = [child for span in spans for child in span["children"]]
    if covered != below:
        raise HorizonError(
            file, f"{name}: children must be the level below, in order, each exactly once"
        )


def check_annotation(obj: Any, file: str | os.PathLike[str]) -> dict[str, Any]:
    """``obj`` when it is a valid annotation, else :class:`HorizonError` naming ``file``."""
    out = _check("annotation", obj, file)
    ops = out["operations"]
    ids = [o["id"] for o in ops]
    if len(set(ids)) != len(ids):
        raise HorizonError(file, "operations: ids are not unique")
    previous_end = 0
    for op in ops:
        if op["end_step"] <= op["start_step"] or op["start_step"] < previous_end:
            raise HorizonError(file, f"operation {op['id']}: steps out of order or empty")
        if op["t_end"] < op["t_start"]:
            raise HorizonError(file, f"operation {op['id']}: ends before it starts")
        previous_end = op["end_step"]
    if out["status"] == "ok":
        if not ops or not out["goals"] or not out["strategies"]:
            raise HorizonError(file, "an ok annotation holds every level")
        _check_level(file, "goals", out["goals"], ids)
        _check_level(file, "strategies", out["strategies"], [g["id"] for g in out["goals"]])
    elif not out["error"]:
        raise HorizonError(file, "a failed annotation says why (error)")
    return out


def write_annotation(episode_dir: str | os.PathLike[str], obj: Mapping[str, Any]) -> Path:
    """Check ``obj`` and write it as the episode's ``horizon.json``, atomically."""
    file = Path(episode_dir) / ANNOTATION_NAME
    write_json_atomic(file, check_annotation(dict(obj), file))
    return file


def _read(path: str | os.PathLike[str]) -> Any:
    try:
        return read_json(path)
    except FileNotFoundError:
        raise
    except ValueError as exc:
        raise HorizonError(path, f"not JSON: {exc}") from None
    except OSError as exc:
        raise HorizonError(path, f"cannot be read: {exc}") from None


def annotation_path(path: str | os.PathLike[str]) -> Path:
    """The annotation file of ``path``: an episode directory or the file itself."""
    path = Path(path)
    return path / ANNOTATION_NAME if path.is_dir() else path


def read_annotation(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The checked annotation of an episode directory (or of an annotation file)."""
    file = annotation_path(path)
    return check_annotation(_read(file), file)


def check_questions(obj: Any, file: str | os.PathLike[str]) -> dict[str, Any]:
    out = _check("questions", obj, file)
    ids = [q["id"] for q in out["questions"]]
    if len(set(ids)) != len(ids):
        raise HorizonError(file, "question ids are not unique")
    return out


def write_questions(path: str | os.PathLike[str], obj: Mapping[str, Any]) -> None:
    write_json_atomic(path, check_questions(dict(obj), path))


def read_questions(path: str | os.PathLike[str]) -> dict[str, Any]:
    return check_questions(_read(path), path)


def check_answers(obj: Any, file: str | os.PathLike[str]) -> dict[str, Any]:
    out = _check("answers", obj, file)
    for answer in out["answers"]:
        if (answer["status"] == "ok") != (answer["choice"] is not None):
            raise HorizonError(file, f"answer {answer['id']}: a choice exactly when ok")
        if answer["choice"] is None and answer["correct"]:
            raise HorizonError(file, f"answer {answer['id']}: no choice cannot be correct")
    return out


def write_answers(path: str | os.PathLike[str], obj: Mapping[str, Any]) -> None:
    write_json_atomic(path, check_answers(dict(obj), path))


def read_answers(path: str | os.PathLike[str]) -> dict[str, Any]:
    return check_answers(_read(path), path)


#: Columns of an annotation index (one row per annotated episode).
INDEX_COLUMNS = ("episode", "annotation", "status", "operations", "goals", "strategies", "format")


def index_row(episode_dir: str | os.PathLike[str], annotation: Mapping[str, Any]) -> dict[str, Any]:
    """The index row of an episode and its (checked) annotation."""
    return {
        "episode": os.fspath(episode_dir),
        "annotation": os.fspath(Path(episode_dir) / ANNOTATION_NAME),
        "status": annotation["status"],
        "operations": len(annotation["operations"]),
        "goals": len(annotation["goals"]),
        "strategies": len(annotation["strategies"]),
        "format": HORIZON_FORMAT,
    }


def write_annotation_index(path: str | os.PathLike[str], rows: Sequence[Mapping[str, Any]]) -> None:
    """The index as TSV, atomically (written last: its presence means the job is done)."""
    with atomic_open(path) as fh:
        writer = csv.DictWriter(fh, fieldnames=INDEX_COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row[k] for k in INDEX_COLUMNS})


def read_annotation_index(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of an index, checked: its columns, a known format, counts as integers."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="\t")
            if tuple(reader.fieldnames or ()) != INDEX_COLUMNS:
                raise HorizonError(path, f"columns must be {list(INDEX_COLUMNS)}")
            rows = list(reader)
    except (OSError, UnicodeDecodeError) as exc:
        raise HorizonError(path, f"cannot be read: {exc}") from None
    out = []
    for n, row in enumerate(rows, start=2):
        try:
            check_format(path, row["format"], HORIZON_FORMAT, "annotation index")
            counts = {k: int(row[k]) for k in ("operations", "goals", "strategies")}
        except (RecordError, ValueError) as exc:
            raise HorizonError(path, f"line {n}: {exc}") from None
        if row["status"] not in ("ok", "failed"):
            raise HorizonError(path, f"line {n}: status {row['status']!r}")
        out.append({**row, **counts, "format": int(row["format"])})
    return out
