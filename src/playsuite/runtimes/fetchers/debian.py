"""Debian games: the package and the rest of its source's packages (``-data``...) unpacked with
``dpkg -x`` into the game tree, its other dependencies resolved and shared
(:mod:`.debian_closure`), links made to work under ``/game`` too, and the metadata read from the
package's control fields, desktop file and copyright file."""

from __future__ import annotations

import configparser
import contextlib
import gzip
import os
import re
from pathlib import Path
from typing import IO, Any

from playsuite.corpus import GameEntry
from playsuite.runtimes.fetchers.apt_index import AptIndex, control_fields
from playsuite.runtimes.fetchers.common import (
    DEBIAN_PYTHON,
    FILES,
    AcquisitionError,
    file_sha256,
    find_readme,
    run_logged,
)
from playsuite.runtimes.fetchers.debian_closure import DEPS, fetch_into_store, link_closure, resolve
from playsuite.runtimes.fetchers.debian_triggers import compile_gsettings_schemas


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


def _fix_symlinks(files: Path, deps: Path) -> None:
    """Make the unpacked tree's links work where the sandbox mounts it (``/game``) too.

    Packages link into themselves with absolute paths (``/usr/share/games/x/...``) and to files
    of other packages with relative paths (``../../fonts/...``). Each link is resolved as if the
    tree were installed at ``/``: a target inside the tree becomes a relative link, a target that
    the game's dependencies (laid over ``/usr`` in the sandbox) or the host have becomes an
    absolute link to the installed path.
    """
    for link in [p for p in files.rglob("*") if p.is_symlink()]:
        target = os.readlink(link)
        installed = Path("/", link.relative_to(files)).parent
        as_installed = Path(os.path.normpath(installed / target))
        in_tree = files / as_installed.relative_to("/")
        if os.path.lexists(in_tree):
            new = os.path.relpath(in_tree, link.parent)
        elif os.path.lexists(deps / as_installed.relative_to("/")) or os.path.lexists(as_installed):
            new = str(as_installed)
        else:
            continue
        if new != target:
            link.unlink()
            link.symlink_to(new)


def acquire_debian(
    game: GameEntry, stage: Path, files: Path, base_dir: Path, log: IO[str] | None
) -> dict[str, Any]:
    """The game's own packages into ``files``, the rest of its closure into ``deps`` (linked
    from the store shared by all games under the same games directory)."""
    main = game.package
    index = AptIndex(log)
    fields = index.show(main, game.version or None)
    if fields is None:
        spec = f"{main}={game.version}" if game.version else main
        raise AcquisitionError(f"{game.id}: apt-cache knows no package {spec!r}")
    extra = list((game.options.get("acquire") or {}).get("packages", []))
    closure = resolve(fields, index, extra)
    downloads = stage / "downloads"
    downloads.mkdir()
    run_logged(
        ["apt-get", "download", "-q", *(f"{p.name}={p.version}" for p in closure.own)],
        log,
        cwd=downloads,
    )
    debs = sorted(downloads.glob("*.deb"))
    if len(debs) != len(closure.own):
        raise AcquisitionError(
            f"{game.id}: expected {len(closure.own)} .deb files, got {len(debs)}"
        )
    packages = []
    for deb in debs:
        control = control_fields(run_logged(["dpkg-deb", "-f", str(deb)], log))
        if control.get("Package") == main:
            fields = {**fields, **control}
        run_logged(["dpkg-deb", "-x", str(deb), str(files)], log)
        packages.append(
            {
                "name": control.get("Package"),
                "version": control.get("Version"),
                "file": deb.name,
                "sha256": file_sha256(deb),
            }
        )
    games_dir = stage.parent
    dependencies = fetch_into_store(games_dir, closure.fetched, log)
    deps = stage / DEPS
    if closure.fetched:
        link_closure(games_dir, closure.fetched, deps)
    _fix_symlinks(files, deps)
    triggers = compile_gsettings_schemas(files, [deps] if closure.fetched else [], log)
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
        "readme": find_readme(files, [files / "usr/share/doc" / main]),
    }
    return {
        "version": fields["Version"],
        "packages": packages,
        "dependencies": dependencies,
        "host_packages": dict(sorted(closure.host.items())),
        "unresolved_dependencies": closure.unresolved,
        "layers": [FILES, DEPS] if closure.fetched else [FILES],
        "triggers": triggers,
        "python": DEBIAN_PYTHON,
        "metadata": metadata,
    }


def read_text_maybe_gz(path: Path) -> str:
    """README files in Debian packages are often gzip-compressed."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    return path.read_text(encoding="utf-8", errors="replace")
