"""Ingest platform metadata dumps (itch.io, PyWeek) into one normalised record per game.

Both dumps may be JSON Lines (one object per line) or CSV (header row); the fields are documented
in docs/catalog.md. In CSV, list fields are either a JSON array (``["Linux", "HTML5"]``) or a
``;``-separated string. Values are normalised here -- platforms, input methods, release status and
flags to lower-case slugs -- so that the filters compare one spelling. A malformed row is an error
naming the file and line, never a silently dropped game.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from playsuite.files import atomic_open

SOURCES = ("itch", "pyweek")
#: Sources read from a package registry's index (playsuite.catalog.debian_index, pypi_index,
#: npm_index) rather than a platform dump: the game is the registry's package, fetched by name,
#: not an archive.
REGISTRY_SOURCES = ("debian", "pypi", "npm")


class DumpError(ValueError):
    """A dump file or row that cannot be read."""


@dataclass(frozen=True, slots=True)
class RawGame:
    """One game as its platform describes it, before any filter."""

    id: str  # catalog id: "{source}-{slug of the platform id}"
    source: str  # itch | pyweek | debian | pypi | npm
    source_id: str
    title: str
    author: str = ""
    url: str = ""
    rating: float | None = None
    rating_count: int | None = None
    free: bool = True
    release_status: str = ""  # released | in-development | prototype | on-hold | canceled | ...
    platforms: tuple[str, ...] = ()  # web | linux | windows | macos | android | ...
    input_methods: tuple[str, ...] = ()  # keyboard | mouse | gamepad | touchscreen | ...
    tags: tuple[str, ...] = ()
    description: str = ""
    controls: str = ""
    nsfw: bool = False
    content_warnings: tuple[str, ...] = ()
    classification: str = "game"  # itch.io kind: game | tool | assets | comic | soundtrack | ...
    made_with: tuple[str, ...] = ()  # npm: the manifest's evidence (catalog.npm_filters)
    players: str = ""  # e.g. "1", "1-4", "2"
    multiplayer: tuple[str, ...] = ()  # e.g. "local-multiplayer", "server-based-networked"
    archive: str = ""  # mirror-relative path, absolute path, or URL
    build: str = ""  # web | linux | python: which build the archive holds
    start: str = ""  # how to start the game inside the archive (catalog `entry`)
    screen: str = ""
    python_version: str = ""
    library: tuple[str, ...] = ()
    readme: str = ""
    diary: tuple[str, ...] = ()
    version: str = ""  # registry sources: the package version the index listed
    section: str = ""  # Debian: the archive section (``games``, ``contrib/games``)
    depends: tuple[str, ...] = ()  # Debian: names of the package's dependencies

    def to_dict(self) -> dict[str, Any]:
        # field by field rather than dataclasses.asdict: no deep copies (1.7M records at scale)
        out = {}
        for name in _FIELDS:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RawGame:
        return cls(
            **{
                k: (tuple(v) if isinstance(v, list) else v)
                for k, v in data.items()
                if k in _FIELD_SET
            }
        )

    @property
    def runtime(self) -> str:
        """Which runtime the archived build needs."""
        return {"web": "browser", "linux": "native", "python": "pygame"}.get(self.build, "native")


_FIELDS = tuple(f.name for f in fields(RawGame))
_FIELD_SET = frozenset(_FIELDS)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


_PLATFORM = {
    "html5": "web",
    "html": "web",
    "browser": "web",
    "web": "web",
    "play-in-browser": "web",
    "linux": "linux",
    "windows": "windows",
    "win": "windows",
    "macos": "macos",
    "osx": "macos",
    "mac": "macos",
    "android": "android",
    "ios": "ios",
}
_INPUT = {
    "keyboard": "keyboard",
    "mouse": "mouse",
    "gamepad": "gamepad",
    "gamepad-any": "gamepad",
    "xbox-controller": "gamepad",
    "playstation-controller": "gamepad",
    "joystick": "gamepad",
    "controller": "gamepad",
    "touchscreen": "touchscreen",
    "touch": "touchscreen",
}


def _list(value: Any, where: str, name: str) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DumpError(f"{where}: field {name!r} is not a JSON list: {exc}") from None
            return _list(parsed, where, name)
        return [v.strip() for v in text.split(";") if v.strip()]
    raise DumpError(f"{where}: field {name!r} must be a list or string, not {type(value).__name__}")


def _float(value: Any, where: str, name: str) -> float | None:
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise DumpError(f"{where}: field {name!r} is not a number: {value!r}") from None


def _int(value: Any, where: str, name: str) -> int | None:
    number = _float(value, where, name)
    if number is None:
        return None
    if number != int(number) or number < 0:
        raise DumpError(f"{where}: field {name!r} is not a count: {value!r}")
    return int(number)


def _bool(value: Any, where: str, name: str) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "y"):
        return True
    if text in ("0", "false", "no", "n"):
        return False
    raise DumpError(f"{where}: field {name!r} is not a boolean: {value!r}")


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _required(row: dict[str, Any], name: str, where: str) -> str:
    value = _text(row.get(name))
    if not value:
        raise DumpError(f"{where}: required field {name!r} is missing or empty")
    return value


def _norm(values: Iterable[str], table: dict[str, str]) -> tuple[str, ...]:
    out: list[str] = []
    for value in values:
        key = slug(value)
        norm = table.get(key, key)
        if norm and norm not in out:
            out.append(norm)
    return tuple(out)


def _itch(row: dict[str, Any], where: str) -> RawGame:
    source_id = _required(row, "id", where)
    price = _float(row.get("price"), where, "price")
    free = _bool(row.get("free"), where, "free")
    if free is None:
        free = price is None or price == 0
    platforms = _norm(_list(row.get("platforms"), where, "platforms"), _PLATFORM)
    build = slug(_text(row.get("build")))
    if not build:
        build = "web" if "web" in platforms else "linux" if "linux" in platforms else ""
    tags = _list(row.get("tags"), where, "tags")
    genre = _text(row.get("genre"))
    if genre and genre.lower() not in (t.lower() for t in tags):
        tags.insert(0, genre)
    return RawGame(
        id=slug(f"itch-{source_id}"),
        source="itch",
        source_id=source_id,
        title=_required(row, "title", where),
        author=_text(row.get("author")),
        url=_text(row.get("url")),
        rating=_float(row.get("rating"), where, "rating"),
        rating_count=_int(row.get("rating_count"), where, "rating_count"),
        free=free,
        release_status=slug(_text(row.get("release_status"))),
        platforms=platforms,
        input_methods=_norm(_list(row.get("input_methods"), where, "input_methods"), _INPUT),
        tags=tuple(tags),
        description=_text(row.get("description")),
        controls=_text(row.get("controls")),
        nsfw=bool(_bool(row.get("nsfw"), where, "nsfw")),
        content_warnings=_norm(_list(row.get("content_warnings"), where, "content_warnings"), {}),
        classification=slug(_text(row.get("classification")) or "game").removesuffix("s"),
        made_with=tuple(_list(row.get("made_with"), where, "made_with")),
        players=_text(row.get("players")),
        multiplayer=_norm(_list(row.get("multiplayer"), where, "multiplayer"), {}),
        archive=_text(row.get("archive")),
        build=build,
        start=_text(row.get("start")) or ("index.html" if build == "web" else ""),
        screen=_text(row.get("screen")),
    )


def _pyweek(row: dict[str, Any], where: str) -> RawGame:
    entry = _required(row, "entry", where)
    return RawGame(
        id=slug(f"pyweek-{entry}"),
        source="pyweek",
        source_id=entry,
        title=_required(row, "title", where),
        author=_text(row.get("author")),
        url=_text(row.get("url")),
        rating=_float(row.get("rating"), where, "rating"),
        rating_count=_int(row.get("rating_count"), where, "rating_count"),
        free=True,
        release_status="released",
        platforms=("linux",),
        input_methods=_norm(_list(row.get("input_methods"), where, "input_methods"), _INPUT),
        tags=tuple(_list(row.get("tags"), where, "tags")),
        description=_text(row.get("description")),
        controls=_text(row.get("controls")),
        players=_text(row.get("players")),
        archive=_text(row.get("archive")),
        build="python",
        start=_text(row.get("start")) or "run_game.py",
        screen=_text(row.get("screen")),
        python_version=_text(row.get("python_version")),
        library=_norm(_list(row.get("library"), where, "library"), {}),
        readme=_text(row.get("readme")),
        diary=tuple(_list(row.get("diary"), where, "diary")),
    )


_PARSERS = {"itch": _itch, "pyweek": _pyweek}


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.suffix == ".csv":
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            for row in reader:
                yield reader.line_num, row
        return
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DumpError(f"{path}:{number}: not JSON: {exc}") from None
            if not isinstance(obj, dict):
                raise DumpError(f"{path}:{number}: expected a JSON object per line")
            yield number, obj


def read_dump(path: str | Path, source: str) -> list[RawGame]:
    """Read one platform dump (``.jsonl`` or ``.csv``); ids must be unique within it."""
    if source not in _PARSERS:
        raise DumpError(f"unknown source {source!r}; known: {', '.join(SOURCES)}")
    path = Path(path)
    if not path.exists():
        raise DumpError(f"dump not found: {path}")
    if path.suffix not in (".jsonl", ".csv"):
        raise DumpError(f"{path}: dumps must be .jsonl or .csv")
    games: list[RawGame] = []
    seen: set[str] = set()
    for number, row in _rows(path):
        game = _PARSERS[source](row, f"{path}:{number}")
        if game.id in seen:
            raise DumpError(f"{path}:{number}: duplicate id {game.source_id!r}")
        seen.add(game.id)
        games.append(game)
    return games


def write_records(games: Iterable[RawGame], path: str | Path) -> None:
    """Write normalised records as JSON Lines, atomically."""
    with atomic_open(path) as fh:
        for game in games:
            fh.write(json.dumps(game.to_dict(), ensure_ascii=False) + "\n")


def read_records(path: str | Path) -> list[RawGame]:
    with open(path, encoding="utf-8") as fh:
        return [RawGame.from_dict(json.loads(line)) for line in fh if line.strip()]
