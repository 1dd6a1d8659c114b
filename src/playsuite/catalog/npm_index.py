"""npm as a catalog source: browser games among the registry's packages, as normalised records.

npm has no category of games and its search API answers ranked pages, not complete lists, so the
candidates come from a name list: npm's complete one is the package ``all-the-package-names``
(``names.json``, a JSON array of about 4.5 M names; :func:`fetch_names` fetches it with npm's own
client), or any list of one name a line. It is narrowed without asking the registry: a name is a
candidate when one of its words (the lower-cased name cut at every character that is no letter or
digit) is a word of ``config/catalog/npm.yaml``'s ``name_words`` or ends in one of its
``name_endings``, or the name contains one of its ``name_substrings`` (about 16,000 names of the
4.5 M). Each candidate's latest manifest (``https://registry.npmjs.org/{name}/latest``: a small
JSON document) is then read, a few at a time, with a timeout and an on-disk cache, so a rerun asks
the registry nothing; at most ``lookups`` candidates are read (a seeded sample when there are
more; 0: all).

Unlike the PyPI ingest, which keeps only what requires pygame, this one makes a record of every
candidate the registry knows: a survey gives every candidate an outcome, and the reasons are the
screen's (:mod:`playsuite.catalog.npm_filters`), where the funnel counts them. The ingest only
reads the manifest with the rules and records the evidence it found in ``made_with``. A candidate
the registry does not know (HTTP 404: unpublished, or removed as spam, yet still in the name
list) has no manifest to make a record of; it is listed in the snapshot's ``left_out`` with the
outcome ``not on npm``, which the survey table turns into a row at stage ``ingest``, as it does
for the PyPI candidates the ingest leaves out. A network failure stops the ingest with an error.

What was read is pinned in a snapshot (JSON: each manifest's excerpt with the sha256 of the
answer, the read time, the name list's hash, the counts). Naming the snapshot as the corpus's
``npm`` source later gives the same records without the network (:func:`read_npm`).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import yaml

from playsuite.catalog.debian_index import GenreTable
from playsuite.catalog.ingest import DumpError, RawGame, slug
from playsuite.catalog.name_list_snapshot import header, sample
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
from playsuite.files import write_text_atomic

#: What a snapshot file says it is (a name list is anything else).
SNAPSHOT_FORMAT = "playsuite-npm-snapshot/1"
#: The npm package that ships the registry's complete name list, and the file in it.
NAMES_PACKAGE = "all-the-package-names"
NAMES_FILE = "names.json"
LATEST = "https://registry.npmjs.org/{name}/latest"
TIMEOUT_S = 30.0
WORKERS = 6
#: Answers worth asking again (the registry's rate limit, a busy or failing server), and how
#: often: a survey asks about thousands of packages, and one hiccup should not stop it.
RETRY_CODES = (429, 500, 502, 503, 504)
RETRIES = 2
NOT_ON_NPM = "not on npm"
_HEADERS = {"User-Agent": "playsuite-catalog (registry survey)", "Accept": "application/json"}
#: An npm name (legacy names may have capitals): becomes a URL path and a cache file name.
_VALID_NAME = re.compile(r"^(@[A-Za-z0-9~-][\w.~-]*/)?[A-Za-z0-9~-][\w.~-]*$")

Fetch = Callable[[str, Path], "dict[str, Any] | None"]


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


# ------------------------------------------------------------------------------ the name list


def read_names(path: str | Path) -> list[str]:
    """The names a name list holds: a JSON array (``names.json`` of all-the-package-names), or
    one name a line (``#`` starts a comment line)."""
    text = Path(path).read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        names = json.loads(text)
        if not isinstance(names, list):
            raise DumpError(f"{path}: expected a JSON array of names")
        return [str(n).strip() for n in names if str(n).strip()]
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def name_pattern(rules: NpmRules) -> re.Pattern[str]:
    """One expression for the three name tests (a word, a word's ending, a substring), on the
    lower-cased name: a single search per name keeps 4.5 M names to about ten seconds."""
    parts = []
    if rules.name_words:
        words = "|".join(re.escape(w) for w in rules.name_words)
        parts.append(rf"(?<![a-z0-9])(?:{words})(?![a-z0-9])")
    if rules.name_endings:
        parts.append(rf"(?:{'|'.join(re.escape(w) for w in rules.name_endings)})(?![a-z0-9])")
    parts += [re.escape(w) for w in rules.name_substrings]
    return re.compile("|".join(parts) or r"(?!)")


def prefilter(names: Iterable[str], rules: NpmRules) -> list[str]:
    """Names (unique, in list order) that match the rules' name words; a line that is no valid
    npm name is skipped (names become URLs and cache file names)."""
    pattern = name_pattern(rules)
    out: dict[str, None] = {}
    for name in names:
        if pattern.search(name.lower()) and _VALID_NAME.match(name):
            out.setdefault(name, None)
    return list(out)


def fetch_names(out: str | Path, log: IO[str] | None = None) -> Path:
    """npm's complete name list: ``npm pack all-the-package-names`` (npm's own client, which
    checks the tarball's integrity) and its ``names.json`` unpacked to ``out``. The tarball is
    not kept (27 MB); ``log`` gets the version and integrity read, and a snapshot of an ingest
    records the list's sha256."""
    import tarfile
    import tempfile

    from playsuite.processes import probe

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".names-", dir=out.parent) as tmp:
        argv = ["npm", "pack", NAMES_PACKAGE, "--json", "--pack-destination", tmp, "--silent"]
        done = probe(argv, timeout_s=600)
        if done is None or done.returncode != 0:
            error = done.stderr.strip()[-300:] if done else "npm missing, or silent for 600 s"
            raise DumpError(f"npm pack {NAMES_PACKAGE} failed: {error}")
        packed = json.loads(done.stdout)[0]
        if log is not None:
            log.write(f"{packed['id']} {packed['filename']} {packed.get('integrity', '')}\n")
        with tarfile.open(Path(tmp) / packed["filename"], "r:gz") as tar:
            member = tar.extractfile(f"package/{NAMES_FILE}")
            if member is None:
                raise DumpError(f"{packed['filename']}: no package/{NAMES_FILE}")
            write_text_atomic(out, member.read().decode("utf-8"))
    return out


# --------------------------------------------------------------------------- registry look-ups


def cache_name(name: str) -> str:
    """A package's cache file stem and URL path segment: a scoped name's slash escaped."""
    return urllib.parse.quote(name, safe="@")


def _text_list(value: Any) -> list[str]:
    """Keywords as a list (old manifests give one comma- or space-separated string)."""
    if isinstance(value, str):
        return [w for w in re.split(r"[,\s]+", value) if w]
    return [str(v).strip() for v in value or () if isinstance(v, str) and v.strip()]


def _licence(manifest: dict[str, Any]) -> str:
    """The manifest's licence as one string (``license`` may be an object; old ``licenses``)."""
    value = manifest.get("license")
    if isinstance(value, dict):
        value = value.get("type")
    if not value and isinstance(manifest.get("licenses"), list):
        types = [str(x.get("type", x) if isinstance(x, dict) else x) for x in manifest["licenses"]]
        value = " OR ".join(types)
    return str(value or "").strip()


def _person(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("name") or "").strip()
    return re.sub(r"\s*[<(].*", "", str(value or "")).strip()


def excerpt(manifest: dict[str, Any], sha256: str) -> dict[str, Any]:
    """What a snapshot keeps of a latest manifest (``sha256``: of the answer read)."""
    name = str(manifest.get("name") or "")
    bin_ = manifest.get("bin")
    if isinstance(bin_, str):  # one command, named after the package
        bin_ = {name.rsplit("/", 1)[-1]: bin_}
    dist = manifest.get("dist") or {}
    browser = manifest.get("browser")
    return {
        "name": name,
        "version": str(manifest.get("version") or ""),
        "description": str(manifest.get("description") or "").strip(),
        "keywords": _text_list(manifest.get("keywords")),
        "license": _licence(manifest),
        "homepage": str(manifest.get("homepage") or ""),
        "author": _person(manifest.get("author")),
        "bin": {str(k): str(v) for k, v in (bin_ or {}).items()} if isinstance(bin_, dict) else {},
        "main": str(manifest.get("main") or ""),
        "browser": browser if isinstance(browser, str) else "",
        "types": str(manifest.get("types") or manifest.get("typings") or ""),
        "dependencies": sorted(manifest.get("dependencies") or {}),
        "peer_dependencies": sorted(manifest.get("peerDependencies") or {}),
        "dist": {
            key: dist.get(key)
            for key in ("tarball", "shasum", "integrity", "fileCount", "unpackedSize")
        },
        "manifest_sha256": sha256,
    }


def _open(url: str, timeout_s: float) -> bytes:
    """The answer to ``url``; a 404 raises ``HTTPError``, a busy registry is asked again."""
    for attempt in range(RETRIES + 1):
        request = urllib.request.Request(url, headers=_HEADERS)
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                return bytes(response.read())
        except urllib.error.HTTPError as exc:
            if exc.code not in RETRY_CODES or attempt == RETRIES:
                raise
        except (urllib.error.URLError, TimeoutError):
            if attempt == RETRIES:
                raise
        time.sleep(2.0**attempt)
    raise AssertionError("unreachable")


def fetch_manifest(name: str, cache: Path, *, timeout_s: float = TIMEOUT_S) -> dict | None:
    """The excerpt of a package's latest manifest, from ``cache`` when read before; ``None``
    for a package the registry does not know (404, or an answer with no version: unpublished;
    cached too). Other failures raise :class:`DumpError`."""
    stem = cache_name(name)
    hit, missing = cache / f"{stem}.json", cache / f"{stem}.missing"
    if hit.is_file():
        return dict(json.loads(hit.read_text(encoding="utf-8")))
    if missing.is_file():
        return None
    try:
        data = _open(LATEST.format(name=stem), timeout_s)
        manifest = json.loads(data)
    except urllib.error.HTTPError as exc:
        if exc.code != 404:
            raise DumpError(f"npm registry failed for {name}: HTTP {exc.code}") from exc
        cache.mkdir(parents=True, exist_ok=True)
        write_text_atomic(missing, f"HTTP {exc.code}\n")
        return None
    except (OSError, ValueError) as exc:
        raise DumpError(f"npm registry failed for {name}: {exc}") from exc
    cache.mkdir(parents=True, exist_ok=True)
    if not isinstance(manifest, dict) or not manifest.get("version"):
        write_text_atomic(missing, "no published version\n")
        return None
    found = excerpt(manifest, hashlib.sha256(data).hexdigest())
    write_text_atomic(hit, json.dumps(found, sort_keys=True))
    return found


def look_up(
    candidates: list[str],
    cache: Path,
    *,
    workers: int = WORKERS,
    fetch: Fetch | None = None,
) -> tuple[list[dict[str, Any]], dict[str, int], list[dict[str, str]]]:
    """Read each candidate's manifest (``workers`` at a time): the excerpts in candidate order,
    the counts, and the candidates the registry does not know, each with its ``outcome`` and
    ``detail`` (the survey's table lists them too). ``fetch``: :func:`fetch_manifest` unless
    given."""
    fetch = fetch or fetch_manifest
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        found = list(pool.map(lambda name: fetch(name, cache), candidates))
    packages = [p for p in found if p is not None]
    left = [
        {
            "name": name,
            "id": package_id(name),
            "version": "",
            "outcome": NOT_ON_NPM,
            "detail": "the registry has no published version (HTTP 404: unpublished or removed)",
        }
        for name, p in zip(candidates, found, strict=True)
        if p is None
    ]
    counts = {"looked_up": len(candidates), "on_npm": len(packages), "recorded": len(packages)}
    return packages, counts, left


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


def read_snapshot(path: str | Path) -> dict[str, Any] | None:
    """An npm snapshot's content, or ``None`` when the file is a name list."""
    with open(path, encoding="utf-8") as fh:
        head = fh.read(1024).lstrip()
    if not head.startswith("{"):
        return None
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("format") != SNAPSHOT_FORMAT:
        raise DumpError(f"{path}: not an npm snapshot (format {data.get('format')!r})")
    return data


def read_npm(
    location: str | Path,
    rules: NpmRules,
    cache: str | Path,
    lookups: int,
    seed: int = 0,
    fetch: Fetch | None = None,
) -> tuple[list[RawGame], dict[str, Any]]:
    """Records of the packages a snapshot pins, or of a name list's candidates read from the
    registry; and the snapshot that reproduces them (``read_at``, counts per step, the
    packages, and the candidates ``left_out`` with why)."""
    if not Path(location).is_file():
        raise DumpError(f"npm name list or snapshot not found: {location}")
    pinned = read_snapshot(location)
    if pinned is not None:
        packages, snapshot = pinned["packages"], pinned
    else:
        names = read_names(location)
        candidates = prefilter(names, rules)
        chosen = sample(candidates, lookups, seed)
        packages, counts, left = look_up(chosen, Path(cache), fetch=fetch)
        snapshot = header(
            SNAPSHOT_FORMAT,
            location,
            names=len(names),
            candidates=len(candidates),
            counts=counts,
            lookups=lookups,
            seed=seed,
        )
        snapshot.update(packages=packages, left_out=left)
    return [record(p, rules) for p in packages], snapshot
