"""PyPI as a catalog source: pygame games and game-classified projects, as normalised records.

PyPI has no search by classifier or reverse dependency, so the games are found in two steps.
A name list (one project a line, or a TSV with ``name`` and optional ``summary`` columns) is
narrowed without asking the registry: a project is a candidate when its name or summary contains
a word of ``config/catalog/pypi.yaml``'s ``name_words``. Each candidate's core metadata is
then read through pip (``pip install --dry-run --no-deps --report``: the release pip would
install here), a few at a time, with a timeout and an on-disk cache (a rerun asks the registry
nothing), and a project is kept when it requires pygame or pygame-ce outside an extra, or
carries a ``Topic :: Games/Entertainment`` classifier. At most
``lookups`` candidates are read (a seeded sample when there are more): the registry is asked
about the projects the corpus may use, not scanned.

What was kept is pinned in a snapshot (JSON: the kept projects' metadata excerpt with the sha256
of each report read and of the release file, the read time and the name list's hash). Naming the
snapshot as the corpus's ``pypi`` source later gives the same records without the network
(:func:`read_pypi`), the way a Debian ``snapshot.Packages`` does.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from playsuite.catalog.debian_index import GenreTable
from playsuite.catalog.ingest import DumpError, RawGame, slug
from playsuite.catalog.name_list_snapshot import header, sample
from playsuite.files import write_text_atomic
from playsuite.processes import probe
from playsuite.runtimes.fetchers.common import DEBIAN_PYTHON

#: What a snapshot file says it is (a name list is anything else).
SNAPSHOT_FORMAT = "playsuite-pypi-snapshot/1"
GAMES_TOPIC = "Topic :: Games/Entertainment"
TIMEOUT_S = 60.0
#: pip's words for "no release of this project installs here" (no project, no wheel, no release
#: for this Python), as opposed to a network or index failure.
NOT_INSTALLABLE = "No matching distribution found"
WORKERS = 4
JSON_API = "https://pypi.org/pypi/{name}/json"
_HEADERS = {"User-Agent": "playsuite-catalog (registry survey)", "Accept": "application/json"}


def normalise(name: str) -> str:
    """A project name as PyPI compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class PypiRules:
    """The word lists and mappings of ``config/catalog/pypi.yaml`` (see its comments)."""

    name_words: tuple[str, ...]
    libraries: tuple[str, ...]
    gui_libraries: tuple[str, ...]
    gui_classifiers: tuple[str, ...]
    non_free_licenses: tuple[str, ...]
    genres: GenreTable

    @classmethod
    def load(cls, path: str | Path) -> PypiRules:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh) or {}

        def words(key: str) -> tuple[str, ...]:
            return tuple(str(w) for w in data.get(key) or ())

        keywords = {
            tag: tuple(str(w) for w in ws) for tag, ws in (data.get("keywords") or {}).items()
        }
        return cls(
            name_words=words("name_words"),
            libraries=tuple(normalise(n) for n in words("libraries")),
            gui_libraries=tuple(normalise(n) for n in words("gui_libraries")),
            gui_classifiers=words("gui_classifiers"),
            non_free_licenses=words("non_free_licenses"),
            genres=GenreTable(dict(data.get("classifiers") or {}), keywords),
        )


# ------------------------------------------------------------------------------ the name list


def read_names(path: str | Path) -> list[tuple[str, str]]:
    """``(name, summary)`` of every project a name list holds (summary ``""`` when absent)."""
    text = Path(path).read_text(encoding="utf-8")
    lines = text.splitlines()
    if lines and "\t" in lines[0] and "name" in lines[0].split("\t"):
        reader = csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(r["name"].strip(), (r.get("summary") or "").strip()) for r in reader if r["name"]]
    return [(line.strip(), "") for line in lines if line.strip() and not line.startswith("#")]


_VALID_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")


def prefilter(names: Iterable[tuple[str, str]], words: Iterable[str]) -> list[str]:
    """Names (normalised, unique, in list order) whose name or summary contains a word; a
    line that is no valid project name is skipped (names become cache file names)."""
    pattern = re.compile("|".join(re.escape(w.lower()) for w in words))
    out: dict[str, None] = {}
    for name, summary in names:
        norm = normalise(name)
        if not _VALID_NAME.match(norm):
            continue
        if pattern.search(norm) or (summary and pattern.search(summary.lower())):
            out.setdefault(norm, None)
    return list(out)


# --------------------------------------------------------------------------- registry look-ups


def fetch_metadata(name: str, cache: Path, *, timeout_s: float = TIMEOUT_S) -> bytes | None:
    """pip's installation report for a project (the release pip would install here, with its
    core metadata and the file's sha256), from ``cache`` when read before; ``None`` for a
    project with no wheel for this Python (cached too, with pip's reason). Other failures
    raise :class:`DumpError`.

    pip is the registry's own client: it uses the indexes pip is configured with and reads
    only the metadata where the index serves it (PEP 658), without installing anything. Wheels
    only: pip would build a source distribution to learn its metadata, which runs the
    project's own code on this machine, outside any sandbox.
    """
    hit, missing = cache / f"{name}.json", cache / f"{name}.missing"
    if hit.is_file():
        return hit.read_bytes()
    if missing.is_file():
        return None
    # the interpreter a PyPI game's venv is made from: pip then picks the release (and knows
    # the Requires-Python) that acquisition will install
    python = DEBIAN_PYTHON if Path(DEBIAN_PYTHON).is_file() else sys.executable
    argv = [python, "-m", "pip", "install", "--dry-run", "--ignore-installed"]
    argv += ["--no-deps", "--only-binary", ":all:", "--quiet", "--no-input"]
    argv += ["--disable-pip-version-check"]
    done = probe([*argv, "--report", "-", name], timeout_s=timeout_s)
    if done is None:
        raise DumpError(f"pip did not answer for {name} within {timeout_s:g} s")
    cache.mkdir(parents=True, exist_ok=True)
    if done.returncode != 0:
        if NOT_INSTALLABLE not in done.stderr:
            raise DumpError(f"pip look-up of {name} failed: {done.stderr.strip()[-300:]}")
        write_text_atomic(missing, done.stderr)
        return None
    write_text_atomic(hit, done.stdout)
    return done.stdout.encode()


def fetch_json(name: str, cache: Path, *, timeout_s: float = TIMEOUT_S) -> dict[str, Any] | None:
    """What PyPI's JSON API says of a project's latest release (name, version, summary,
    classifiers, requires_dist), from ``cache`` when read before; ``None`` for a project PyPI
    does not know (404, cached too). Other failures raise :class:`DumpError`.

    This is the survey's cheap first look: one small HTTP request, no interpreter started. A
    project it shows to be no game is not asked about through pip (about 1 s of CPU each).
    """
    hit, missing = cache / f"{name}.pypi-json", cache / f"{name}.pypi-missing"
    if hit.is_file():
        return dict(json.loads(hit.read_text(encoding="utf-8")))
    if missing.is_file():
        return None
    request = urllib.request.Request(JSON_API.format(name=name), headers=_HEADERS)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            info = json.loads(response.read())["info"]
    except urllib.error.HTTPError as exc:
        if exc.code != 404:
            raise DumpError(f"PyPI's JSON API failed for {name}: HTTP {exc.code}") from exc
        cache.mkdir(parents=True, exist_ok=True)
        write_text_atomic(missing, f"HTTP {exc.code}\n")
        return None
    except (OSError, ValueError, KeyError) as exc:
        raise DumpError(f"PyPI's JSON API failed for {name}: {exc}") from exc
    keep = ("name", "version", "summary", "classifiers", "requires_dist")
    first = {key: info.get(key) for key in keep}
    cache.mkdir(parents=True, exist_ok=True)
    write_text_atomic(hit, json.dumps(first, sort_keys=True))
    return first


def no_game_by_json(first: dict[str, Any], rules: PypiRules) -> str:
    """Why the JSON API's look shows a project to be no pygame game (the ingest's test on the
    latest release), or ``""`` when pip must tell: a games topic, a pygame requirement, or no
    requirements listed at all (old uploads list none; their wheel's metadata may)."""
    classifiers = first.get("classifiers") or ()
    if any(c.startswith(GAMES_TOPIC) for c in classifiers):
        return ""
    requires = first.get("requires_dist")
    if requires is None or any(lib in requirement_names(requires) for lib in rules.libraries):
        return ""
    return "requires no pygame and has no Games topic"


def requirement_names(requires_dist: Iterable[str] | None) -> tuple[str, ...]:
    """Normalised names of the requirements that are not only for an extra."""
    out: list[str] = []
    for req in requires_dist or ():
        if re.search(r"\bextra\s*==", req.partition(";")[2]):
            continue
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if match and normalise(match.group(1)) not in out:
            out.append(normalise(match.group(1)))
    return tuple(out)


def _url(labelled: list[str] | None) -> str | None:
    """The first URL of core metadata's ``Project-URL`` entries (``"Homepage, https://..."``)."""
    return next((u.split(",", 1)[-1].strip() for u in labelled or ()), None)


def excerpt(report: dict[str, Any], sha256: str) -> dict[str, Any]:
    """What a snapshot keeps of pip's report on a project (``sha256``: of the report read)."""
    item = report["install"][0]
    meta = item.get("metadata") or {}
    info = {
        "name": meta.get("name"),
        "version": meta.get("version"),
        "summary": meta.get("summary"),
        "author": meta.get("author"),
        "author_email": meta.get("author_email"),
        "license": meta.get("license"),
        "home_page": meta.get("home_page"),
        "project_url": _url(meta.get("project_url")),
        "requires_python": meta.get("requires_python"),
        "keywords": meta.get("keywords"),
        "classifiers": meta.get("classifier") or [],
        "requires_dist": meta.get("requires_dist") or [],
    }
    download = item.get("download_info") or {}
    hashes = (download.get("archive_info") or {}).get("hashes") or {}
    file = {"filename": download.get("url", "").rsplit("/", 1)[-1], "sha256": hashes.get("sha256")}
    return {"info": info, "files": [file], "report_sha256": sha256}


def is_kept(project: dict[str, Any], rules: PypiRules) -> bool:
    """A pygame game or a game-classified project (the ingest's test)."""
    info = project["info"]
    requires = requirement_names(info.get("requires_dist"))
    games = any(c.startswith(GAMES_TOPIC) for c in info.get("classifiers") or ())
    return games or any(lib in requires for lib in rules.libraries)


def look_up(
    candidates: list[str],
    cache: Path,
    rules: PypiRules,
    *,
    workers: int = WORKERS,
    first_look: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, int], list[dict[str, str]]]:
    """Read each candidate's metadata (``workers`` at a time) and keep the games; the kept
    projects' excerpts in candidate order, the counts of what happened, and the candidates
    left out, each with its ``outcome`` and ``detail`` (the survey's table lists them too).

    With ``first_look`` a candidate pip was not asked about before is first looked at through
    PyPI's JSON API (:func:`fetch_json`), and pip is asked only when that does not settle it.
    """

    def one(name: str) -> tuple[dict[str, Any] | None, dict[str, str] | None]:
        reported = (cache / f"{name}.json").is_file() or (cache / f"{name}.missing").is_file()
        if first_look and not reported:
            first = fetch_json(name, cache)
            if first is None:
                return None, _left(name, "", "not on PyPI", "PyPI's JSON API: 404")
            reason = no_game_by_json(first, rules)
            if reason:
                return None, _left(name, str(first.get("version") or ""), "not a game", reason)
        data = fetch_metadata(name, cache)
        if data is None:
            detail = "no wheel of it installs here (pip: No matching distribution found)"
            return None, _left(name, "", "not installable", detail)
        project = excerpt(json.loads(data), hashlib.sha256(data).hexdigest())
        if not is_kept(project, rules):
            version = str(project["info"].get("version") or "")
            return None, _left(name, version, "not a game", "requires no pygame, no Games topic")
        return project, None

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        found = list(pool.map(one, candidates))
    kept = [p for p, _ in found if p is not None]
    left = [out for _, out in found if out is not None]
    # a project pip cannot install here (no such project, no release for this Python) is
    # not installable: its report is missing
    not_installable = sum(1 for out in left if out["outcome"] in ("not installable", "not on PyPI"))
    counts = {
        "looked_up": len(candidates),
        "installable": len(candidates) - not_installable,
        "kept": len(kept),
    }
    return kept, counts, left


def _left(name: str, version: str, outcome: str, detail: str) -> dict[str, str]:
    return {"name": name, "version": version, "outcome": outcome, "detail": detail}


# ------------------------------------------------------------------------------------ records


def record(project: dict[str, Any], rules: PypiRules) -> RawGame:
    """One kept project as a catalog record (the entry is found after acquisition)."""
    info = project["info"]
    name = info["name"]
    classifiers = tuple(info.get("classifiers") or ())
    requires = requirement_names(info.get("requires_dist"))
    pygame = tuple(lib for lib in rules.libraries if lib in requires)
    summary = (info.get("summary") or "").strip()
    gui = [lib for lib in rules.gui_libraries if lib in requires]
    gui += [c for c in classifiers if c.startswith(rules.gui_classifiers)]
    # old uploads declare no requirements; a summary that names the library is evidence too
    gui += [
        f"{lib} (summary)"
        for lib in (*rules.libraries, *rules.gui_libraries)
        if not pygame and lib not in requires and re.search(rf"\b{re.escape(lib)}\b", summary, re.I)
    ]
    author = info.get("author") or re.sub(r"\s*<[^>]*>", "", info.get("author_email") or "")
    return RawGame(
        id=slug(f"pypi-{normalise(name)}"),
        source="pypi",
        source_id=normalise(name),
        title=name,
        author=author.strip(),
        url=info.get("project_url") or info.get("home_page") or "",
        platforms=("linux",),
        free=not any(c in rules.non_free_licenses for c in classifiers),
        made_with=tuple(gui),
        tags=classifiers + tuple(rules.genres.genre_tags(classifiers, summary)),
        description=summary,
        build="python" if pygame else "linux",
        library=pygame,
        version=info.get("version") or "",
        depends=requires,
    )


def read_snapshot(path: str | Path) -> dict[str, Any] | None:
    """A PyPI snapshot's content, or ``None`` when the file is a name list."""
    text = Path(path).read_text(encoding="utf-8")
    if not text.lstrip().startswith("{"):
        return None
    data = json.loads(text)
    if data.get("format") != SNAPSHOT_FORMAT:
        raise DumpError(f"{path}: not a PyPI snapshot (format {data.get('format')!r})")
    return data


def read_pypi(
    location: str | Path,
    rules: PypiRules,
    cache: str | Path,
    lookups: int,
    seed: int = 0,
    first_look: bool = False,
) -> tuple[list[RawGame], dict[str, Any]]:
    """Records of the games a snapshot pins, or that a name list yields through the registry;
    and the snapshot that reproduces them (``read_at``, counts per step, the projects, and the
    candidates ``left_out`` with why). ``first_look``: see :func:`look_up` (a survey of the
    whole index sets it)."""
    if not Path(location).is_file():
        raise DumpError(f"PyPI name list or snapshot not found: {location}")
    pinned = read_snapshot(location)
    if pinned is not None:
        projects, snapshot = pinned["projects"], pinned
    else:
        names = read_names(location)
        candidates = prefilter(names, rules.name_words)
        chosen = sample(candidates, lookups, seed)
        projects, counts, left = look_up(chosen, Path(cache), rules, first_look=first_look)
        snapshot = header(
            SNAPSHOT_FORMAT,
            location,
            names=len(names),
            candidates=len(candidates),
            counts=counts,
            lookups=lookups,
            seed=seed,
        )
        snapshot.update(projects=projects, left_out=left)
    return [record(p, rules) for p in projects], snapshot
