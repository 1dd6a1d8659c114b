"""Corpus tables: one row per game, the only place that names a game.

A corpus is either a hand-kept YAML file (``config/corpora/*.yaml``) or a curated TSV
(``results/catalog/{corpus}/games.tsv``); both hold the same fields (DESIGN.md "Catalog entry")
and load into the same :class:`GameEntry`.
"""

from __future__ import annotations

import ast
import csv
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from playsuite.config import ConfigError, load_yaml, validate

#: How the catalog's sources are named in tables and figures (the funnel, the reproduction report).
SOURCE_LABELS = {"itch": "itch.io", "pyweek": "PyWeek"}

LIST_FIELDS = ("args", "tags", "tasks")
JSON_FIELDS = ("probes", "options")
TSV_COLUMNS = (
    "id",
    "title",
    "author",
    "source",
    "package",
    "version",
    "runtime",
    "entry",
    "args",
    "tags",
    "genre",
    "description",
    "controls",
    "readme",
    "rating",
    "rating_count",
    "probes",
    "screen",
    "options",
    "tasks",
)


@dataclass(frozen=True)
class GameEntry:
    """One game of a corpus (DESIGN.md "Catalog entry")."""

    id: str
    title: str
    source: str
    package: str
    runtime: str
    entry: str = ""  # only a PyPI row may leave it to the launch check (its wheel's scripts)
    author: str = ""
    version: str | None = None
    args: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    genre: str | None = None
    description: str = ""
    controls: str = ""
    readme: str | None = None
    rating: float | None = None
    rating_count: int | None = None
    probes: dict[str, str] = field(default_factory=dict)
    screen: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    #: Goal-directed tasks verified from ``probes`` (schema ``task``; playsuite.judge.tasks).
    tasks: tuple[dict[str, Any], ...] = ()

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> GameEntry:
        data = dict(row)
        for name in LIST_FIELDS:
            if name in data and data[name] is not None:
                data[name] = tuple(data[name])
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for name in LIST_FIELDS:
            out[name] = list(out[name])
        return out

    @property
    def screen_size(self) -> tuple[int, int] | None:
        if not self.screen:
            return None
        w, h = self.screen.split("x")
        return int(w), int(h)


def _row_from_tsv(raw: dict[str, str]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for key, value in raw.items():
        if value is None or value == "":
            continue
        if key in LIST_FIELDS:
            row[key] = (
                [v.strip() for v in value.split(",") if v.strip()]
                if key == "tags"
                else json.loads(value)
            )
        elif key in JSON_FIELDS:
            row[key] = json.loads(value)
        elif key == "rating":
            row[key] = float(value)
        elif key == "rating_count":
            row[key] = int(value)
        else:
            row[key] = value.replace("\\n", "\n")
    return row


def _row_to_tsv(entry: GameEntry) -> dict[str, str]:
    data = entry.to_dict()
    out: dict[str, str] = {}
    for key in TSV_COLUMNS:
        value = data.get(key)
        if value is None or value == () or value == [] or value == {}:
            out[key] = ""
        elif key == "tags":
            out[key] = ",".join(value)
        elif key in JSON_FIELDS or key in ("args", "tasks"):
            out[key] = json.dumps(value, separators=(",", ":"))
        else:
            out[key] = str(value).replace("\t", " ").replace("\n", "\\n")
    return out


def load_corpus(path: str | Path) -> list[GameEntry]:
    """Load and validate a corpus table (YAML or TSV); ids must be unique."""
    path = Path(path)
    if path.suffix == ".tsv":
        with open(path, encoding="utf-8", newline="") as fh:
            rows = [_row_from_tsv(r) for r in csv.DictReader(fh, delimiter="\t")]
        data: Any = {"games": rows}
    else:
        data = load_yaml(path)
    validate(data, "corpus", source=str(path))
    games = [GameEntry.from_dict(row) for row in data["games"]]
    seen: set[str] = set()
    for game in games:
        if game.id in seen:
            raise ConfigError(f"{path}: duplicate game id {game.id!r}")
        seen.add(game.id)
        check_tasks(game, str(path))
    return games


def task_probe_names(expression: str) -> set[str]:
    """The probe names a task's ``probe`` expression reads (ConfigError when it does not parse)."""
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as err:
        raise ConfigError(f"task probe {expression!r} is not an expression: {err.msg}") from None
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def check_tasks(game: GameEntry, source: str) -> None:
    """What the schema cannot say about a row's tasks: names are unique, every name a task's
    expression reads is one of the row's probes, and a given baseline differs from the target
    (progress divides by their difference)."""
    names: set[str] = set()
    for task in game.tasks:
        where = f"{source}: game {game.id!r} task {task['name']!r}"
        if task["name"] in names:
            raise ConfigError(f"{where}: duplicate task name")
        names.add(task["name"])
        unknown = sorted(task_probe_names(task["probe"]) - set(game.probes))
        if unknown:
            known = ", ".join(sorted(game.probes)) or "none"
            raise ConfigError(
                f"{where}: unknown probe(s) {', '.join(unknown)}; the row has {known}"
            )
        if task.get("baseline") is not None and task["baseline"] == task["target"]:
            raise ConfigError(f"{where}: baseline equals target")


def write_corpus_tsv(games: list[GameEntry], path: str | Path) -> None:
    """Write a curated corpus table atomically."""
    from playsuite.files import atomic_open

    with atomic_open(path) as fh:
        writer = csv.DictWriter(fh, fieldnames=TSV_COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        for game in games:
            writer.writerow(_row_to_tsv(game))


def find_game(games: list[GameEntry], game_id: str) -> GameEntry:
    for game in games:
        if game.id == game_id:
            return game
    raise ConfigError(f"no game {game_id!r} in corpus; known: {', '.join(g.id for g in games)}")
