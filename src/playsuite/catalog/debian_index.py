"""Debian's package index as a catalog source: the games it lists, as normalised records.

The index is either this machine's apt index (``apt``: ``apt-cache dumpavail`` prints every
available stanza of the lists under /var/lib/apt/lists) or a file in the same ``Packages``
format, such as the excerpt a previous ingest wrote. A package is a game candidate when its
``Section`` is ``games`` (any area: ``contrib/games`` and ``non-free/games`` are kept here and
excluded by a filter, so the funnel counts them) or a ``game::`` debtag names it one.

Debian packages have no ratings, controls or player counts; what the filters and the genre rule
need comes from the debtags (``Tag``: ``interface::x11``, ``network::server``, ``game::arcade``),
the dependencies (a graphics library is evidence of a GUI when a package has no tags) and the
one-line synopsis. The runtime follows from the package: a Python game that depends on
python3-pygame runs under the pygame runtime, everything else natively through its own launcher.
Both start at ``/usr/games/{package}``; when a package's launcher has another name the launch
dry-run finds it in the unpacked package (:func:`playsuite.catalog.launch.debian_entry`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from playsuite.catalog.ingest import DumpError, RawGame, slug
from playsuite.files import atomic_open
from playsuite.processes import probe
from playsuite.runtimes.fetchers.apt_index import control_fields, depends, satisfies

#: The value of a corpus's ``debian`` key that means "this machine's apt index".
LIVE_INDEX = "apt"
APT_LISTS = Path("/var/lib/apt/lists")
ARCHITECTURES = ("amd64", "all")


def stanzas(text: str) -> Iterator[dict[str, str]]:
    """Every stanza of a ``Packages``-format text (blank-line separated)."""
    for chunk in re.split(r"\n\s*\n", text):
        if chunk.strip():
            fields = control_fields(chunk)
            if fields.get("Package"):
                yield fields


def debtags(fields: dict[str, str]) -> tuple[str, ...]:
    """The ``Tag`` field as a tuple (``game::arcade``, ...); ``()`` for an untagged package."""
    text = fields.get("Tag", "").replace("\n", " ")
    return tuple(t.strip() for t in text.split(",") if t.strip())


def is_game(fields: dict[str, str]) -> bool:
    section = fields.get("Section", "")
    return section.rsplit("/", 1)[-1] == "games" or any(
        t.startswith("game::") for t in debtags(fields)
    )


def read_index(location: str) -> str:
    """The index text: ``apt`` asks apt (its lists are lz4-compressed), else a file is read."""
    if location == LIVE_INDEX:
        done = probe(["apt-cache", "dumpavail"], timeout_s=300)
        if done is None or done.returncode != 0:
            raise DumpError("apt-cache dumpavail failed: is this a Debian machine with apt lists?")
        return done.stdout
    path = Path(location)
    if not path.is_file():
        raise DumpError(f"Debian index not found: {path}")
    return path.read_text(encoding="utf-8")


def game_stanzas(text: str) -> list[dict[str, str]]:
    """The game stanzas of an index for this machine's architectures, one per package: where
    several suites list a package (bookworm, bookworm-updates), the highest version wins."""
    chosen: dict[str, dict[str, str]] = {}
    for fields in stanzas(text):
        if fields.get("Architecture") not in ARCHITECTURES or not is_game(fields):
            continue
        name = fields["Package"]
        old = chosen.get(name)
        if old is None or satisfies(fields["Version"], f">> {old['Version']}"):
            chosen[name] = fields
    return [chosen[name] for name in sorted(chosen)]


@dataclass(frozen=True)
class GenreTable:
    """Debtags and synopsis keywords onto the taxonomy's genre tags (config/catalog/
    debtag_genres.yaml): the record gains those tags, and the Table 6 rule decides as for
    itch.io games; a package with none is left to the LLM classifier."""

    debtags: dict[str, str]
    keywords: dict[str, tuple[str, ...]]

    @classmethod
    def load(cls, path: str | Path | None) -> GenreTable:
        if not path:
            return cls({}, {})
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh) or {}
        keywords = {tag: tuple(words) for tag, words in (data.get("keywords") or {}).items()}
        return cls(dict(data.get("debtags") or {}), keywords)

    def genre_tags(self, tags: Iterable[str], synopsis: str) -> list[str]:
        out: list[str] = []
        for tag in tags:
            mapped = self.debtags.get(tag)
            if mapped and mapped not in out:
                out.append(mapped)
        text = synopsis.lower()
        for mapped, words in self.keywords.items():
            if mapped not in out and any(
                re.search(rf"\b{re.escape(w.lower())}\b", text) for w in words
            ):
                out.append(mapped)
        return out


def _dependency_names(fields: dict[str, str]) -> tuple[str, ...]:
    text = ", ".join(fields.get(k, "") for k in ("Pre-Depends", "Depends") if fields.get(k))
    return tuple(name for group in depends(text) for name, _ in group)


def record(fields: dict[str, str], genres: GenreTable) -> RawGame:
    """One game stanza as a catalog record."""
    name = fields["Package"]
    tags = debtags(fields)
    synopsis = fields.get("Description", "").split("\n", 1)[0].strip()
    deps = _dependency_names(fields)
    pygame = "implemented-in::python" in tags or any(d.startswith("python3") for d in deps)
    pygame = pygame and "python3-pygame" in deps
    return RawGame(
        id=slug(f"debian-{name.replace('+', 'plus')}"),  # xgalaga, xgalaga++
        source="debian",
        source_id=name,
        title=name,
        author=fields.get("Maintainer", ""),
        url=fields.get("Homepage", ""),
        platforms=("linux",),
        tags=tags + tuple(genres.genre_tags(tags, synopsis)),
        description=synopsis,
        build="python" if pygame else "linux",
        start=f"/usr/games/{name}",
        library=("pygame",) if pygame else (),
        version=fields.get("Version", ""),
        section=fields.get("Section", ""),
        depends=deps,
    )


def runtime_options(game: RawGame) -> dict[str, Any]:
    """Row options a Debian package's dependencies imply: a pygame game that depends on
    python3-opengl renders with OpenGL (the pygame runtime's ``opengl`` option)."""
    if game.source == "debian" and game.runtime == "pygame" and "python3-opengl" in game.depends:
        return {"opengl": True}
    return {}


def read_debian(location: str, genres: GenreTable) -> tuple[list[RawGame], str]:
    """Records of the games an index lists, and the index excerpt they were read from (the game
    stanzas verbatim, so a later ingest of the excerpt gives the same records)."""
    chosen = game_stanzas(read_index(location))
    excerpt = "\n".join(_stanza_text(f) for f in chosen)
    return [record(f, genres) for f in chosen], excerpt


def _stanza_text(fields: dict[str, str]) -> str:
    return "".join(f"{key}: {value}\n" for key, value in fields.items())


def _release_dates() -> list[dict[str, str]]:
    """Which signed index the apt lists are: each Release file's ``Date`` and hash."""
    out = []
    for path in sorted(APT_LISTS.glob("*InRelease")):
        data = path.read_bytes()
        date = re.search(rb"^Date: (.*)$", data, re.M)
        out.append(
            {
                "file": path.name,
                "date": date.group(1).decode() if date else "",
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    return out


def snapshot_entry(location: str, excerpt: str, excerpt_path: str | Path) -> dict[str, Any]:
    """What ``snapshot.json`` records of a Debian index read: where from, when, which release
    files, and the hash of the excerpt written next to it."""
    entry: dict[str, Any] = {
        "index": location,
        "read_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "excerpt": str(excerpt_path),
        "excerpt_sha256": hashlib.sha256(excerpt.encode()).hexdigest(),
        "packages": excerpt.count("\nPackage: ") + excerpt.startswith("Package: "),
    }
    if location == LIVE_INDEX:
        entry["apt_releases"] = _release_dates()
    return entry


def write_excerpt(excerpt: str, path: str | Path) -> None:
    with atomic_open(path) as fh:
        fh.write(excerpt)
