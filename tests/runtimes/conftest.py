"""Shared fixtures for runtime tests: games acquired once per session, fresh run directories.

Real games are acquired from their registries into ``results/test-cache/games`` (override with
``PLAYSUITE_TEST_GAMES``); acquisition is idempotent, so a second session reuses them. Fixture
games under ``tests/fixtures`` are acquired the same way (source ``local``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from playsuite.corpus import GameEntry, load_corpus
from playsuite.runtimes.acquire import AcquiredGame, acquire
from playsuite.runtimes.base import RuntimeOptions

REPO = Path(__file__).resolve().parents[2]
LOCAL_CORPUS = REPO / "config" / "corpora" / "local.yaml"


def games_cache() -> Path:
    return Path(os.environ.get("PLAYSUITE_TEST_GAMES", REPO / "results" / "test-cache" / "games"))


@pytest.fixture(scope="session")
def local_corpus() -> list[GameEntry]:
    return load_corpus(LOCAL_CORPUS)


@pytest.fixture(scope="session")
def acquired() -> Callable[[GameEntry], AcquiredGame]:
    """``acquired(game)``: the game's files, fetched at most once per session.

    Fixture games (source ``local``) are copied again only when a fixture was edited: their
    request holds a hash of the fixture's folder.
    """
    cache: dict[str, AcquiredGame] = {}

    def get(game: GameEntry) -> AcquiredGame:
        if game.id not in cache:
            cache[game.id] = acquire(game, games_cache(), base_dir=REPO)
        return cache[game.id]

    return get


def fixture_game(name: str, *, args: tuple[str, ...] = (), **fields: object) -> GameEntry:
    """A row for a fixture game in ``tests/fixtures/{name}`` (played from a local copy)."""
    row = {
        "id": name.replace("_", "-"),
        "title": name,
        "source": "local",
        "package": f"tests/fixtures/{name}",
        "runtime": "pygame",
        "entry": "main.py",
        "args": list(args),
        **fields,
    }
    return GameEntry.from_dict(row)


@pytest.fixture
def run_options(tmp_path: Path) -> Iterator[Callable[..., RuntimeOptions]]:
    """``run_options(acquired_game, **overrides)``: options with a fresh private workdir."""
    counter = iter(range(1000))

    def make(game: AcquiredGame, **overrides: object) -> RuntimeOptions:
        workdir = tmp_path / f"run{next(counter)}"
        workdir.mkdir()
        values: dict[str, object] = {
            "workdir": workdir,
            "game_dir": game.files,
            "launch_timeout_s": 30.0,
            "slice_timeout_s": 30.0,
        }
        values.update(overrides)
        return RuntimeOptions(**values)  # type: ignore[arg-type]

    yield make
