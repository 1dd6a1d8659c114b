"""What an npm manifest says a package is: the rules of ``config/catalog/npm.yaml``, the labelled
evidence each manifest gives (a page, a terminal program, no game, a server, the network, its
size, its licence), and the catalog record made of it.

The ingest (:mod:`playsuite.catalog.npm_index`) reads the manifests; the screen's npm checks
(:mod:`playsuite.catalog.npm_filters`) decide from the evidence recorded here in ``made_with``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from playsuite.catalog.debian_index import GenreTable
from playsuite.catalog.ingest import RawGame, slug
from playsuite.catalog.npm_filters import (
    LICENCE,
    NETWORK,
    NOT_A_GAME,
    PAGE,
    SERVER,
    TERMINAL,
    TOO_BIG,
    label,
)


def _words(data: dict[str, Any], key: str) -> tuple[str, ...]:
    return tuple(str(w).lower() for w in data.get(key) or ())


@dataclass(frozen=True)
class Evidence:
    """The word lists of one kind of evidence (a section of ``config/catalog/npm.yaml``)."""

    name_words: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()

    @classmethod
    def of(cls, data: dict[str, Any] | None) -> Evidence:
        data = data or {}
        return cls(_words(data, "name_words"), _words(data, "keywords"), _words(data, "libraries"))


@dataclass(frozen=True)
class NpmRules:
    """The word lists and limits of ``config/catalog/npm.yaml`` (see its comments)."""

    name_words: tuple[str, ...]
    name_endings: tuple[str, ...]
    name_substrings: tuple[str, ...]
    page: Evidence
    terminal: Evidence
    not_a_game: Evidence
    scopes: tuple[str, ...]
    hosts: tuple[str, ...]
    library_text: tuple[str, ...]
    game_text: tuple[str, ...]
    server: Evidence
    network: Evidence
    network_text: tuple[str, ...]
    non_free_licenses: tuple[str, ...]
    max_unpacked_mb: float
    genres: GenreTable

    @classmethod
    def load(cls, path: str | Path) -> NpmRules:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh) or {}
        no_game = data.get("not_a_game") or {}
        keywords = {
            tag: tuple(str(w) for w in ws) for tag, ws in (data.get("keywords") or {}).items()
        }
        return cls(
            name_words=_words(data, "name_words"),
            name_endings=_words(data, "name_endings"),
            name_substrings=_words(data, "name_substrings"),
            page=Evidence.of(data.get("page")),
            terminal=Evidence.of(data.get("terminal")),
            not_a_game=Evidence.of(no_game),
            scopes=_words(no_game, "scopes"),
            hosts=_words(no_game, "hosts"),
            library_text=_words(no_game, "library_text"),
            game_text=_words(no_game, "game_text"),
            server=Evidence.of(data.get("server")),
            network=Evidence.of(data.get("network")),
            network_text=_words(data.get("network") or {}, "text"),
            non_free_licenses=_words(data, "non_free_licenses"),
            max_unpacked_mb=float(data.get("max_unpacked_mb") or 0),
            genres=GenreTable({}, keywords),
        )


# --------------------------------------------------------------------------------- evidence


def name_words(name: str) -> list[str]:
    """A name's words: lower-cased, cut at every character that is no letter or digit."""
    return [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]


def _matches(package: dict[str, Any], words: Evidence) -> list[str]:
    """Where ``words`` occur: the name's words, the keywords, the dependency names."""
    name = set(name_words(package["name"]))
    keywords = {k.lower() for k in package.get("keywords") or ()}
    deps = set(package.get("dependencies") or ())
    out = [f"name word {w!r}" for w in words.name_words if w in name]
    out += [f"keyword {w!r}" for w in words.keywords if w in keywords]
    out += [f"dependency {w}" for w in words.libraries if w in deps]
    return out


def _first(text: str, words: Iterable[str]) -> re.Match[str] | None:
    found = [m for w in words for m in [re.search(rf"\b{re.escape(w)}\b", text)] if m]
    return min(found, key=lambda m: m.start(), default=None)


def _tool_text(description: str, rules: NpmRules) -> str:
    """A library word of the description that comes before any game word ("a React component
    for ...", not "a snake game built with the X library"); ``""`` when none."""
    text = description.lower()
    # "game engine", "game framework": a tool for games, whatever the word "game" says
    text = re.sub(
        r"\bgame[- ](?=(engine|framework|library|development|dev|sdk|toolkit)\b)", "", text
    )
    tool, game = _first(text, rules.library_text), _first(text, rules.game_text)
    if tool and (game is None or tool.start() < game.start()):
        return tool.group(0)
    return ""


def evidence(package: dict[str, Any], rules: NpmRules) -> list[str]:
    """What the manifest says the package is, as the labelled items the npm checks read
    (:mod:`playsuite.catalog.npm_filters`)."""
    name = package["name"]
    out = [label(PAGE, m) for m in _matches(package, rules.page)]
    for field in ("main", "browser"):
        if str(package.get(field) or "").lower().endswith((".html", ".htm")):
            out.append(label(PAGE, f"{field} {package[field]}"))
    out += [label(TERMINAL, f"command {cmd} (bin)") for cmd in sorted(package.get("bin") or {})]
    out += [label(TERMINAL, m) for m in _matches(package, rules.terminal)]
    scope = name.split("/", 1)[0].lower() if name.startswith("@") else ""
    if scope and scope in rules.scopes:
        out.append(label(NOT_A_GAME, f"scope {scope}"))
    out += [label(NOT_A_GAME, m) for m in _matches(package, rules.not_a_game)]
    hosts = [h for h in rules.hosts if h in (package.get("peer_dependencies") or ())]
    out += [label(NOT_A_GAME, f"a component: peer dependency {h}") for h in hosts[:1]]
    if package.get("types") and not package.get("main"):
        out.append(label(NOT_A_GAME, f"type definitions only ({package['types']})"))
    tool = _tool_text(str(package.get("description") or ""), rules)
    if tool:
        out.append(label(NOT_A_GAME, f"description: {tool!r}"))
    out += [label(SERVER, m) for m in _matches(package, rules.server)]
    out += [label(NETWORK, m) for m in _matches(package, rules.network)]
    said = _first(str(package.get("description") or "").lower(), rules.network_text)
    if said:
        out.append(label(NETWORK, f"description: {said.group(0)!r}"))
    size = (package.get("dist") or {}).get("unpackedSize")
    limit = rules.max_unpacked_mb
    if isinstance(size, int | float) and limit and size > limit * 1e6:
        out.append(label(TOO_BIG, f"{size / 1e6:.0f} MB unpacked, limit {limit:g} MB"))
    licence = package.get("license") or ""
    if is_non_free(licence, rules):
        out.append(label(LICENCE, licence))
    return out


def is_non_free(licence: str, rules: NpmRules) -> bool:
    text = licence.lower()
    return any(word in text for word in rules.non_free_licenses)


# ------------------------------------------------------------------------------------ records


def package_id(name: str) -> str:
    """The catalog id of a package: ``npm-{slug}``, and when the name is not its own slug
    (``@types/chess.js``, ``snake_game``, capitals) a short hash of it too, so that names that
    slug alike (``snake_game`` and ``snake-game`` both exist) keep distinct ids."""
    plain = slug(name)
    if plain == name:
        return f"npm-{plain}"
    return f"npm-{plain}-{hashlib.sha256(name.encode()).hexdigest()[:6]}"


def record(package: dict[str, Any], rules: NpmRules) -> RawGame:
    """One package as a catalog record: a browser game as far as the ingest is concerned (the
    screen reads ``made_with``'s evidence; the launch check finds the page)."""
    name = package["name"]
    keywords = tuple(package.get("keywords") or ())
    description = package.get("description") or ""
    text = " ".join([" ".join(name_words(name)), " ".join(keywords), description])
    deps = (*package.get("dependencies", ()), *package.get("peer_dependencies", ()))
    return RawGame(
        id=package_id(name),
        source="npm",
        source_id=name,
        title=name,
        author=package.get("author") or "",
        url=package.get("homepage") or f"https://www.npmjs.com/package/{name}",
        platforms=("web",),
        free=not is_non_free(package.get("license") or "", rules),
        made_with=tuple(evidence(package, rules)),
        tags=keywords + tuple(t for t in rules.genres.genre_tags((), text) if t not in keywords),
        description=description,
        build="web",
        version=package.get("version") or "",
        depends=tuple(dict.fromkeys(deps)),
    )
