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
reads the manifest with the rules and records the evidence it found in ``made_with``
(:mod:`playsuite.catalog.npm_evidence`). A candidate the registry does not serve (HTTP 404:
unpublished; 403: removed as spam or malware, the name held by npm; yet still in the name list) has
no manifest to make a record of; it is listed in the snapshot's ``left_out`` with the outcome ``not
on npm``, which the survey table turns into a row at stage ``ingest``, as it does for the PyPI
candidates the ingest leaves out. A network failure stops the ingest with an error.

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
from pathlib import Path
from typing import IO, Any

from playsuite.catalog.ingest import DumpError, RawGame
from playsuite.catalog.name_list_snapshot import header, sample
from playsuite.catalog.npm_evidence import NpmRules, package_id, record
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
#: Answers for one package that mean it is not there to survey: 404 (unpublished, never was) and
#: 403 (npm removed it, as spam or malware, and holds the name); the name list still has both.
GONE_CODES = (403, 404)
_HEADERS = {"User-Agent": "playsuite-catalog (registry survey)", "Accept": "application/json"}
#: An npm name (legacy names may have capitals): becomes a URL path and a cache file name.
_VALID_NAME = re.compile(r"^(@[A-Za-z0-9~-][\w.~-]*/)?[A-Za-z0-9~-][\w.~-]*$")

Fetch = Callable[[str, Path], "dict[str, Any] | None"]


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
    """The answer to ``url``; a 403 or 404 raises ``HTTPError``, a busy registry is asked
    again."""
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
    for a package the registry does not serve (404; 403, a package npm holds after removing it;
    or an answer with no version: unpublished;
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
        if exc.code not in GONE_CODES:
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
            "detail": "npm serves no version (HTTP 404: unpublished; 403: removed and held)",
        }
        for name, p in zip(candidates, found, strict=True)
        if p is None
    ]
    counts = {"looked_up": len(candidates), "on_npm": len(packages), "recorded": len(packages)}
    return packages, counts, left


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
