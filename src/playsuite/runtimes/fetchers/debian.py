"""Debian games: ``apt-get download`` of the package and its same-version data packages, then
``dpkg -x`` into the game tree, with links made to work under ``/game`` and the metadata read
from the package's control fields, desktop file and copyright file."""

from __future__ import annotations

import configparser
import contextlib
import gzip
import os
import re
from pathlib import Path
from typing import IO, Any

from playsuite.corpus import GameEntry
from playsuite.processes import probe
from playsuite.runtimes.fetchers.common import (
    DEBIAN_PYTHON,
    AcquisitionError,
    file_sha256,
    find_readme,
    run_logged,
)


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
    return _control_fields(run_logged(["apt-cache", "show", "--no-all-versions", spec], log))


def acquire_debian(
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
    run_logged(["apt-get", "download", "-q", *pins], log, cwd=downloads)
    debs = sorted(downloads.glob("*.deb"))
    if len(debs) != len(names):
        raise AcquisitionError(f"{game.id}: expected {len(names)} .deb files, got {len(debs)}")
    packages = []
    depends: list[list[tuple[str, str | None]]] = []
    for deb in debs:
        control = _control_fields(run_logged(["dpkg-deb", "-f", str(deb)], log))
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
        "readme": find_readme(files, [files / "usr/share/doc" / main]),
    }
    return {
        "version": version,
        "packages": packages,
        "python": DEBIAN_PYTHON,
        "missing_system_packages": missing,
        "metadata": metadata,
    }


def read_text_maybe_gz(path: Path) -> str:
    """README files in Debian packages are often gzip-compressed."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    return path.read_text(encoding="utf-8", errors="replace")
