import pytest

from playsuite.catalog.genres import load_taxonomy
from playsuite.config import ConfigError, config_dir
from playsuite.corpus import GameEntry, find_game, load_corpus, write_corpus_tsv


def game(**kw: object) -> GameEntry:
    row = {
        "id": "demo-game",
        "title": "Demo",
        "source": "local",
        "package": "demo",
        "runtime": "pygame",
        "entry": "main.py",
    }
    row.update(kw)
    return GameEntry.from_dict(row)


def test_tsv_round_trip(tmp_path) -> None:
    games = [
        game(
            tags=["Action", "Platformer"],
            description="line one\nline two",
            probes={"score": "game.score"},
            args=["--window"],
            rating=4.5,
            rating_count=12,
        ),
        game(id="other", runtime="browser", entry="index.html", screen="800x600"),
    ]
    path = tmp_path / "games.tsv"
    write_corpus_tsv(games, path)
    assert load_corpus(path) == games
    assert find_game(games, "other").screen_size == (800, 600)
    with pytest.raises(ConfigError, match="no game"):
        find_game(games, "missing")


def test_yaml_is_validated(tmp_path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "games:\n  - {id: Bad_Id, title: x, source: local, package: p, "
        "runtime: pygame, entry: m.py}\n"
    )
    with pytest.raises(ConfigError, match="id"):
        load_corpus(path)
    path.write_text(
        "games:\n  - {id: a, title: x, source: local, package: p, runtime: pygame,"
        " entry: m.py}\n  - {id: a, title: y, source: local, package: p,"
        " runtime: pygame, entry: m.py}\n"
    )
    with pytest.raises(ConfigError, match="duplicate"):
        load_corpus(path)


def test_only_a_pypi_row_may_leave_its_entry_to_the_launch_check(tmp_path) -> None:
    """A PyPI game's entry is in its wheel, found when it is acquired (docs/catalog.md)."""
    path = tmp_path / "c.yaml"
    path.write_text("games:\n  - {id: a, title: x, source: local, package: p, runtime: pygame}\n")
    with pytest.raises(ConfigError, match="entry"):
        load_corpus(path)
    path.write_text("games:\n  - {id: a, title: x, source: pypi, package: p, runtime: pygame}\n")
    assert load_corpus(path)[0].entry == ""


def test_shipped_corpora_use_canonical_genres() -> None:
    """A genre outside Table 6 would be a row of its own in every per-genre table and figure."""
    names = set(load_taxonomy().names)
    for path in sorted((config_dir() / "corpora").glob("*.yaml")):
        for entry in load_corpus(path):
            assert entry.genre is None or entry.genre in names, (path.name, entry.id, entry.genre)
