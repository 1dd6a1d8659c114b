"""Acquisition of itch.io and PyWeek archives: triaged again, unpacked only with safe_extract,
quarantined archives refused before a byte is written."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from playsuite.corpus import GameEntry
from playsuite.runtimes.acquire import AcquisitionError, acquire, load_acquired
from playsuite.runtimes.fetchers.common import extract_archive
from tests.catalog.crafted import file, make_tar

MIRROR = Path(__file__).resolve().parents[1] / "data/catalog/mirror"


def row(source: str, package: str | Path, runtime: str, entry: str, **options: object) -> GameEntry:
    return GameEntry.from_dict(
        {
            "id": f"{source}-game",
            "title": "Game",
            "source": source,
            "package": str(package),
            "runtime": runtime,
            "entry": entry,
            "options": dict(options),
        }
    )


def listing(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_itch_web_archive(tmp_path: Path) -> None:
    game = row("itch", MIRROR / "itch/neon-drift.zip", "browser", "index.html")
    got = acquire(game, tmp_path / "games")
    assert listing(got.files) == ["game.js", "index.html"]
    assert "Neon Drift" in (got.files / "index.html").read_text()
    sha = hashlib.sha256((MIRROR / "itch/neon-drift.zip").read_bytes()).hexdigest()
    assert got.manifest["packages"][0]["sha256"] == sha
    assert got.manifest["triage"]["policy"] == "clean"
    assert got.manifest["triage"]["scan"]["signals"] == []
    assert load_acquired(tmp_path / "games", game.id).manifest == got.manifest
    # the same request again is a no-op
    stamp = (got.root / "acquired.json").stat().st_mtime_ns
    assert (acquire(game, tmp_path / "games").root / "acquired.json").stat().st_mtime_ns == stamp


def test_pyweek_archive_relative_to_base_dir(tmp_path: Path) -> None:
    game = row("pyweek", "pyweek/pw35-clockwork.tar.gz", "pygame", "run_game.py")
    got = acquire(game, tmp_path / "games", base_dir=MIRROR)
    assert (got.files / "run_game.py").is_file() and (got.files / "game/main.py").is_file()
    assert got.metadata["readme"] == "README.txt"
    assert got.python == "/usr/bin/python3"


def test_native_build_keeps_exec_bits(tmp_path: Path) -> None:
    game = row("itch", MIRROR / "itch/star-courier-linux.tar.gz", "native", "")
    got = acquire(game, tmp_path / "games")
    launcher = got.files / "star-courier/start.sh"
    binary = got.files / "star-courier/bin/star-courier"
    assert launcher.stat().st_mode & 0o111 and binary.stat().st_mode & 0o111
    assert binary.read_bytes()[:4] == b"\x7fELF"


@pytest.mark.parametrize(
    ("archive", "signal"),
    [("itch/gift.zip", "path_traversal"), ("itch/broken-download.zip", "corrupt")],
)
def test_quarantined_archive_is_never_unpacked(tmp_path: Path, archive: str, signal: str) -> None:
    games = tmp_path / "deep/games"
    game = row("itch", MIRROR / archive, "browser", "index.html")
    with pytest.raises(AcquisitionError, match=rf"quarantined \(.*{signal}"):
        acquire(game, games)
    # no staging folder, no files, no manifest: only the game's (empty) acquisition lock file
    assert listing(games) == [f".{game.id}.lock"]
    assert (games / f".{game.id}.lock").stat().st_size == 0
    assert not list(tmp_path.rglob(".bashrc"))


def test_catalog_verdict_is_kept(tmp_path: Path) -> None:
    """A clean-looking archive the catalog quarantined stays refused; a recorded monitor policy
    is carried into acquired.json even when today's scan is milder."""
    clean = MIRROR / "itch/quiet-room.zip"
    verdict = {"risk": 4, "policy": "quarantine"}
    refused = row("itch", clean, "browser", "index.html", triage=verdict)
    with pytest.raises(AcquisitionError, match="quarantined"):
        acquire(refused, tmp_path / "games")
    monitored = row("itch", clean, "browser", "index.html", triage={"risk": 3, "policy": "monitor"})
    got = acquire(monitored, tmp_path / "games")
    assert got.manifest["triage"]["policy"] == "monitor"
    assert got.manifest["triage"]["risk"] == 3
    assert got.manifest["triage"]["scan"]["policy"] == "clean"
    assert got.manifest["request"]["triage"] == {"risk": 3, "policy": "monitor"}


def test_windows_extras_make_a_monitored_game(tmp_path: Path) -> None:
    game = row("itch", MIRROR / "itch/letters-home.zip", "browser", "index.html")
    got = acquire(game, tmp_path / "games")
    assert got.manifest["triage"]["policy"] == "monitor"
    names = [s["name"] for s in got.manifest["triage"]["scan"]["signals"]]
    assert names == ["foreign_executable"]


@pytest.fixture()
def mirror_url() -> Iterator[str]:
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(MIRROR))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def test_archive_from_url(tmp_path: Path, mirror_url: str) -> None:
    game = row("pyweek", f"{mirror_url}/pyweek/pw32-drift.tar.gz", "pygame", "run_game.py")
    got = acquire(game, tmp_path / "games")
    sha = hashlib.sha256((MIRROR / "pyweek/pw32-drift.tar.gz").read_bytes()).hexdigest()
    assert got.manifest["packages"][0]["sha256"] == sha
    assert (got.files / "run_game.py").is_file()
    missing = row("itch", f"{mirror_url}/itch/nope.zip", "browser", "index.html")
    with pytest.raises(AcquisitionError, match=r"download .* failed"):
        acquire(missing, tmp_path / "games")
    assert not (tmp_path / "games" / missing.id).exists()


def test_missing_archive(tmp_path: Path) -> None:
    game = row("itch", tmp_path / "absent.zip", "browser", "index.html")
    with pytest.raises(AcquisitionError, match="does not exist"):
        acquire(game, tmp_path / "games")


def test_npm_tarballs_use_the_catalog_extractor(tmp_path: Path) -> None:
    """npm tarballs go through the same safe_extract: a traversal is refused, nothing written."""
    tarball = make_tar(
        tmp_path / "pkg.tgz", [file("package/index.js", "x"), file("package/../../evil", "x")]
    )
    with pytest.raises(AcquisitionError, match="path traversal"):
        extract_archive(tarball, tmp_path / "out")
    assert not (tmp_path / "out").exists() and not (tmp_path / "evil").exists()
    good = make_tar(tmp_path / "ok.tgz", [file("package/package.json", '{"name": "g"}')])
    extract_archive(good, tmp_path / "ok")
    assert listing(tmp_path / "ok") == ["package", "package/package.json"]
