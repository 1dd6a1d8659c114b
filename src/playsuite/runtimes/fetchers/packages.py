"""Games from language registries and from this repository: PyPI (a per-game virtual environment
on Debian's Python), npm (``npm pack`` and unpack, with an optional generated start page) and
``local`` directories (copied)."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import IO, Any

from playsuite.corpus import GameEntry
from playsuite.runtimes.fetchers.common import (
    DEBIAN_PYTHON,
    DEFAULT_PAGE,
    VENV,
    AcquisitionError,
    extract_archive,
    file_sha256,
    find_readme,
    row_metadata,
    run_logged,
    tree_sha256,
)

#: What is never copied from a local game's folder (nor counted in its content hash).
LOCAL_IGNORE = ("__pycache__",)

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


def acquire_pypi(
    game: GameEntry, stage: Path, files: Path, base_dir: Path, log: IO[str] | None
) -> dict[str, Any]:
    venv = files / VENV
    run_logged([DEBIAN_PYTHON, "-m", "venv", "--system-site-packages", str(venv)], log)
    spec = f"{game.package}=={game.version}" if game.version else game.package
    pip = [str(venv / "bin/python"), "-m", "pip"]
    run_logged([*pip, "install", "--no-input", "--disable-pip-version-check", spec], log)
    info = json.loads(run_logged([str(venv / "bin/python"), "-c", _DIST_INFO, game.package], log))
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


def _npm_author(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("name", ""))
    return re.sub(r"\s*[<(][^>)]*[>)]", "", str(value or "")).strip()


def acquire_npm(
    game: GameEntry, stage: Path, files: Path, base_dir: Path, log: IO[str] | None
) -> dict[str, Any]:
    downloads = stage / "downloads"
    downloads.mkdir()
    spec = f"{game.package}@{game.version}" if game.version else game.package
    out = run_logged(
        ["npm", "pack", spec, "--json", "--pack-destination", str(downloads), "--silent"], log
    )
    try:
        packed = json.loads(out)[0]
    except (ValueError, IndexError, KeyError):
        raise AcquisitionError(f"{game.id}: npm pack printed no JSON for {spec}") from None
    tarball = downloads / packed["filename"]
    extract_archive(tarball, files)
    package_json = files / "package" / "package.json"
    meta = json.loads(package_json.read_text(encoding="utf-8")) if package_json.is_file() else {}
    dependencies = _npm_dependencies(files / "package", meta, log)
    metadata = {
        "title": meta.get("name", game.package),
        "author": _npm_author(meta.get("author")),
        "summary": meta.get("description", ""),
        "description": meta.get("description", ""),
        "tags": list(meta.get("keywords") or []),
        "homepage": meta.get("homepage", ""),
        "readme": find_readme(files, [files / "package"]),
    }
    return {
        "version": packed.get("version"),
        "packages": [
            {
                "name": packed.get("name"),
                "version": packed.get("version"),
                "file": packed["filename"],
                "sha256": file_sha256(tarball),
                "integrity": packed.get("integrity"),
            }
        ],
        "dependencies": dependencies,
        "metadata": metadata,
    }


def _npm_dependencies(
    package: Path, meta: dict[str, Any], log: IO[str] | None
) -> list[dict[str, Any]]:
    """Install a package's runtime dependencies beside it (``node_modules``), pinned by npm's
    lock file, and return them (name, version, integrity). Most HTML5 games bundle theirs and
    declare none. Install scripts never run (``--ignore-scripts``): the package is untrusted
    code and this runs on the host, outside the sandbox."""
    if not meta.get("dependencies"):
        return []
    run_logged(
        [
            "npm",
            "install",
            "--omit=dev",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--silent",
        ],
        log,
        cwd=package,
    )
    lock = package / "package-lock.json"
    entries = (
        json.loads(lock.read_text(encoding="utf-8")).get("packages", {}) if lock.is_file() else {}
    )
    return [
        {
            "name": path.rpartition("node_modules/")[2],
            "version": entry.get("version"),
            "integrity": entry.get("integrity"),
        }
        for path, entry in sorted(entries.items())
        if path.startswith("node_modules/")
    ]


def write_page(files: Path, page: dict[str, Any]) -> None:
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


def local_source(game: GameEntry, base_dir: Path) -> Path:
    """The folder a ``local`` game is copied from (``package``, relative to ``base_dir``)."""
    source = Path(game.package)
    return source if source.is_absolute() else base_dir / source


def local_content(game: GameEntry, base_dir: Path) -> str | None:
    """A hash of what :func:`acquire_local` would copy (``None`` when the folder is missing).

    It goes into the game's acquisition request, so editing a file of the folder acquires the
    game again while an unchanged folder stays a no-op. Reading the folder costs little: local
    games are small folders of this repository (test fixtures, in-tree games).
    """
    source = local_source(game, base_dir)
    return tree_sha256(source, LOCAL_IGNORE) if source.is_dir() else None


def acquire_local(
    game: GameEntry, stage: Path, files: Path, base_dir: Path, log: IO[str] | None
) -> dict[str, Any]:
    source = local_source(game, base_dir)
    if not source.is_dir():
        raise AcquisitionError(f"{game.id}: local game directory {source} does not exist")
    shutil.copytree(source, files, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*LOCAL_IGNORE))
    return {
        "version": game.version,
        "packages": [{"name": game.package, "version": game.version}],
        "python": DEBIAN_PYTHON,
        "metadata": row_metadata(game, find_readme(files, [files])),
    }
