"""Catalog games (itch, PyWeek): an archive (a path or an ``http(s)://`` URL) triaged afresh on the
very bytes fetched, combined with the catalog's recorded verdict, and unpacked only if the
stricter of the two does not quarantine it."""

from __future__ import annotations

import re
import shutil
import urllib.request
from pathlib import Path
from typing import IO, Any

from playsuite.archives.triage import POLICIES, scan_archive
from playsuite.corpus import GameEntry
from playsuite.runtimes.fetchers.common import (
    DEBIAN_PYTHON,
    DOWNLOAD_TIMEOUT_S,
    AcquisitionError,
    extract_archive,
    file_sha256,
    find_readme,
    row_metadata,
)

TRIAGE_PLATFORM = {"browser": "web", "native": "native", "pygame": "python"}


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


def acquire_archive(
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
    extract_archive(archive, files)
    return {
        "version": game.version,
        "packages": [
            {"name": game.package, "version": game.version, "sha256": file_sha256(archive)}
        ],
        "python": DEBIAN_PYTHON,
        "metadata": row_metadata(game, game.readme or find_readme(files, [files])),
        "triage": triage,
    }
