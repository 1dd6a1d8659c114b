"""Acquisition: registries to ``results/games/{id}``, idempotent and atomic."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from playsuite.corpus import GameEntry, find_game, load_corpus
from playsuite.runtimes.acquire import (
    AcquisitionError,
    acquire,
    load_acquired,
    request_of,
    tree_sha256,
)
from playsuite.runtimes.fetchers.debian import _fix_symlinks

REPO = Path(__file__).resolve().parents[2]


def _local(tmp_path: Path, **extra: object) -> GameEntry:
    src = tmp_path / "src-game"
    src.mkdir(exist_ok=True)
    (src / "main.py").write_text("print('hi')\n")
    (src / "README.md").write_text("# A game\n")
    row = {
        "id": "tiny",
        "title": "Tiny",
        "source": "local",
        "package": str(src),
        "runtime": "pygame",
        "entry": "main.py",
        **extra,
    }
    return GameEntry.from_dict(row)


def test_local_acquire_is_idempotent(tmp_path: Path) -> None:
    game = _local(tmp_path)
    first = acquire(game, tmp_path / "games")
    assert (first.files / "main.py").read_text() == "print('hi')\n"
    assert first.manifest["metadata"]["readme"] == "README.md"
    assert first.manifest["files_sha256"] == tree_sha256(first.files)
    stamp = (first.root / "acquired.json").stat().st_mtime_ns
    second = acquire(game, tmp_path / "games")
    assert (second.root / "acquired.json").stat().st_mtime_ns == stamp
    assert load_acquired(tmp_path / "games", "tiny").manifest == first.manifest
    # A different request (new version) acquires again and replaces the files.
    v2 = _local(tmp_path, version="2")
    (tmp_path / "src-game" / "main.py").write_text("print('v2')\n")
    third = acquire(v2, tmp_path / "games")
    assert (third.files / "main.py").read_text() == "print('v2')\n"
    assert third.manifest["files_sha256"] != first.manifest["files_sha256"]
    # no staging or old copy left; the game's lock file stays (another process may wait on it)
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == [".tiny.lock", "tiny"]


def test_a_local_game_is_acquired_again_when_its_files_change(tmp_path: Path) -> None:
    """Same id and version, edited source: the copy follows the content (issue #16, defect 9)."""
    game = _local(tmp_path)
    src = tmp_path / "src-game"
    first = acquire(game, tmp_path / "games")
    manifest = first.root / "acquired.json"
    stamp = manifest.stat().st_mtime_ns
    (src / "__pycache__").mkdir()  # never copied, so no reason to copy again
    (src / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    same = acquire(game, tmp_path / "games")
    assert same.manifest == first.manifest and manifest.stat().st_mtime_ns == stamp
    (src / "main.py").write_text("print('ho')\n")  # same size, other content
    edited = acquire(game, tmp_path / "games")
    assert (edited.files / "main.py").read_text() == "print('ho')\n"
    assert edited.manifest["request"]["content"] != first.manifest["request"]["content"]
    assert edited.manifest["files_sha256"] != first.manifest["files_sha256"]
    assert load_acquired(tmp_path / "games", "tiny").manifest == edited.manifest
    (src / "data").mkdir()  # a new file counts too
    (src / "data" / "level.txt").write_text("1")
    assert (acquire(game, tmp_path / "games").files / "data" / "level.txt").read_text() == "1"
    stamp = manifest.stat().st_mtime_ns
    assert acquire(game, tmp_path / "games").manifest["request"] == request_of(game)
    assert manifest.stat().st_mtime_ns == stamp


def test_failed_acquisition_leaves_previous_copy(tmp_path: Path) -> None:
    game = _local(tmp_path)
    good = acquire(game, tmp_path / "games")
    broken = GameEntry.from_dict({**game.to_dict(), "package": str(tmp_path / "missing")})
    with pytest.raises(AcquisitionError, match="does not exist"):
        acquire(broken, tmp_path / "games")
    assert load_acquired(tmp_path / "games", "tiny").manifest == good.manifest
    # no staging or old copy left; the game's lock file stays (another process may wait on it)
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == [".tiny.lock", "tiny"]


def test_unsupported_source_and_missing_game(tmp_path: Path) -> None:
    steam = GameEntry.from_dict(
        {**_local(tmp_path).to_dict(), "source": "steam", "package": "steam://run/1"}
    )
    with pytest.raises(AcquisitionError, match="cannot be acquired automatically"):
        acquire(steam, tmp_path / "games")
    with pytest.raises(AcquisitionError, match="not acquired"):
        load_acquired(tmp_path / "games", "nope")


def test_symlinks_resolve_where_the_tree_is_mounted(tmp_path: Path) -> None:
    tree = tmp_path / "files"
    (tree / "usr/share/games/g").mkdir(parents=True)
    (tree / "usr/share/games/g/data.txt").write_text("data")
    (tree / "usr/games").mkdir(parents=True)
    # absolute link into the package itself -> relative
    os.symlink("/usr/share/games/g/data.txt", tree / "usr/games/data")
    # relative link to a file only the system has -> absolute system path
    os.symlink("../../../../bin/sh", tree / "usr/share/games/g/sh")
    # relative link to a file of a dependency (laid over /usr in the sandbox) -> installed path
    deps = tmp_path / "deps"
    (deps / "usr/share/fonts/f").mkdir(parents=True)
    (deps / "usr/share/fonts/f/font.ttf").write_text("font")
    os.symlink("../../fonts/f/font.ttf", tree / "usr/share/games/g/font.ttf")
    # dangling everywhere -> untouched
    os.symlink("nowhere", tree / "usr/games/nowhere")
    _fix_symlinks(tree, deps)
    assert os.readlink(tree / "usr/games/data") == "../share/games/g/data.txt"
    assert (tree / "usr/games/data").read_text() == "data"
    assert os.readlink(tree / "usr/share/games/g/sh") == "/bin/sh"
    assert os.readlink(tree / "usr/share/games/g/font.ttf") == "/usr/share/fonts/f/font.ttf"
    assert os.readlink(tree / "usr/games/nowhere") == "nowhere"


@pytest.mark.games
def test_npm_with_generated_page(tmp_path: Path) -> None:
    game = find_game(load_corpus(REPO / "config/corpora/local.yaml"), "t-rex-runner")
    got = acquire(game, tmp_path)
    assert got.manifest["version"] == game.version
    assert got.manifest["packages"][0]["sha256"]
    assert got.manifest["packages"][0]["integrity"].startswith("sha512-")
    page = (got.files / game.entry).read_text()
    assert '<script src="package/dist/runner.js"></script>' in page
    assert "initRunner('#container');" in page
    assert got.metadata["author"] == "Mingkai Li"
    assert got.metadata["readme"] == game.readme


@pytest.mark.games
def test_debian_package(tmp_path: Path) -> None:
    game = find_game(load_corpus(REPO / "config/corpora/local.yaml"), "solarwolf")
    got = acquire(game, tmp_path)
    manifest = json.loads((got.root / "acquired.json").read_text())
    assert manifest["packages"][0]["name"] == "solarwolf"
    assert manifest["version"] == game.version
    assert (got.files / "usr/lib/games/solarwolf/main.py").is_file()
    assert got.metadata["title"] == "SolarWolf"
    assert "Pete Shinners" in got.metadata["author"]
    assert "SolarFox" in got.metadata["description"]
    assert "game::arcade" in got.metadata["tags"]
    assert got.metadata["readme"] == game.readme
    assert got.python == "/usr/bin/python3"
    assert got.unresolved_dependencies == []
    assert "python3-pygame" in manifest["host_packages"]  # met by the host: not fetched


@pytest.mark.games
def test_npm_runtime_dependencies_are_installed_pinned_without_scripts(tmp_path: Path) -> None:
    # A game package that declares a runtime dependency (most bundle theirs): npm installs it
    # beside the package, its pinned version and integrity are recorded, and no install script
    # of it runs on the host.
    source = tmp_path / "toy-game"
    source.mkdir()
    (source / "index.html").write_text("<canvas></canvas>")
    package = {
        "name": "toy-game",
        "version": "1.0.0",
        "dependencies": {"is-number": "7.0.0"},
        "scripts": {"postinstall": "touch SCRIPT_RAN"},
    }
    (source / "package.json").write_text(json.dumps(package))
    row = {"id": "toy-game", "title": "Toy", "source": "npm", "package": str(source)}
    game = GameEntry.from_dict({**row, "runtime": "browser", "entry": "package/index.html"})
    got = acquire(game, tmp_path / "games")
    (dependency,) = got.manifest["dependencies"]
    assert (dependency["name"], dependency["version"]) == ("is-number", "7.0.0")
    assert dependency["integrity"].startswith("sha512-")
    assert (got.files / "package/node_modules/is-number/index.js").is_file()
    assert not (got.files / "package/SCRIPT_RAN").exists()
