"""Genre taxonomy: itch.io genre tags -> the paper's nine canonical genres (Table 6).

The mapping lives in ``config/genres.yaml`` so that the table is data, not code. A game with
several genre tags gets the *most specific* genre: specificity of a genre is
``1 / (number of itch.io tags mapped onto it)``, so a genre that one tag stands for alone (Racing)
outweighs one of a broad group (Action: Action, Platformer, Rhythm), which in turn outweighs
Adventure (four tags). The paper leaves ties open; here they go to the genre more of the game's
tags map to, then to the genre listed first in the file -- a rule that depends only on the set
of tags, never on the order a developer typed them in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path

from playsuite.config import ConfigError, config_dir, load_validated


def normalize_tag(tag: str) -> str:
    """Compare tags as itch.io slugs: lower case, runs of space/underscore/hyphen -> one hyphen."""
    return re.sub(r"[\s_\-]+", "-", tag.strip().lower()).strip("-")


@dataclass(frozen=True)
class Genre:
    name: str
    definition: str
    tags: tuple[str, ...]

    @property
    def specificity(self) -> Fraction:
        return Fraction(1, len(self.tags))


@dataclass(frozen=True)
class Taxonomy:
    """The ordered list of canonical genres and the tag index built from it."""

    genres: tuple[Genre, ...]

    def __post_init__(self) -> None:
        seen: dict[str, str] = {}
        names: set[str] = set()
        for genre in self.genres:
            if genre.name.lower() in names:
                raise ConfigError(f"genre {genre.name!r} is listed twice")
            names.add(genre.name.lower())
            for tag in genre.tags:
                key = normalize_tag(tag)
                if key in seen:
                    raise ConfigError(
                        f"tag {tag!r} is mapped onto both {seen[key]!r} and {genre.name!r}"
                    )
                seen[key] = genre.name

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.genres)

    @property
    def tag_count(self) -> int:
        return sum(len(g.tags) for g in self.genres)

    def genre(self, name: str) -> Genre:
        """Look a genre up by name, case-insensitively."""
        for genre in self.genres:
            if genre.name.lower() == name.strip().lower():
                return genre
        raise ConfigError(f"unknown genre {name!r}; known: {', '.join(self.names)}")

    def genre_of_tag(self, tag: str) -> Genre | None:
        key = normalize_tag(tag)
        for genre in self.genres:
            if any(normalize_tag(t) == key for t in genre.tags):
                return genre
        return None

    def classify(self, tags: Iterable[str]) -> str | None:
        """The canonical genre of a tag set, or ``None`` when no tag is a genre tag."""
        hits: dict[str, int] = {}
        for tag in {normalize_tag(t) for t in tags if t.strip()}:
            genre = self.genre_of_tag(tag)
            if genre is not None:
                hits[genre.name] = hits.get(genre.name, 0) + 1
        if not hits:
            return None
        order = {g.name: i for i, g in enumerate(self.genres)}
        best = min(
            hits,
            key=lambda name: (-self.genre(name).specificity, -hits[name], order[name]),
        )
        return best


def taxonomy_from_dict(data: dict) -> Taxonomy:
    return Taxonomy(
        tuple(
            Genre(g["name"], " ".join(g["definition"].split()), tuple(g["tags"]))
            for g in data["genres"]
        )
    )


@cache
def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Load and validate ``config/genres.yaml`` (or ``path``)."""
    path = Path(path) if path else config_dir() / "genres.yaml"
    return taxonomy_from_dict(load_validated(path, "genres"))


def split_tags(text: str) -> list[str]:
    """Split a command-line tag list (``"Action,Racing"``)."""
    return [t.strip() for t in text.split(",") if t.strip()]
