"""The Table 6 genre rule: every single tag, specificity for several tags, deterministic ties."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playsuite.catalog.genres import load_taxonomy, normalize_tag, taxonomy_from_dict
from playsuite.config import ConfigError

TAXONOMY = load_taxonomy()
ALL_TAGS = [(t, g.name) for g in TAXONOMY.genres for t in g.tags]
PLAYSUITE = str(Path(sys.executable).with_name("playsuite"))


#: The paper's Table 6, genre -> the itch.io tags mapped onto it, in the taxonomy list's order.
TABLE_6 = {
    "Action": {"Action", "Platformer", "Rhythm"},
    "Adventure": {"Adventure", "Visual Novel", "Interactive Fiction", "Role Playing"},
    "Puzzle": {"Puzzle", "Educational"},
    "Shooter": {"Shooter"},
    "Simulation": {"Simulation", "Sports"},
    "Survival": {"Survival"},
    "Strategy": {"Strategy", "Card Game"},
    "Fighting": {"Fighting"},
    "Racing": {"Racing"},
}


def test_taxonomy_is_table_6() -> None:
    assert TAXONOMY.names == tuple(TABLE_6)
    assert {g.name: set(g.tags) for g in TAXONOMY.genres} == TABLE_6
    assert TAXONOMY.tag_count == 17
    for genre in TAXONOMY.genres:
        assert "Example" in genre.definition  # each definition names the paper's example games
    assert "Mario Kart" in TAXONOMY.genre("Racing").definition
    assert "Rhythm Doctor" in TAXONOMY.genre("Action").definition


@pytest.mark.parametrize(("tag", "genre"), ALL_TAGS)
def test_every_single_tag_maps_to_its_table_genre(tag: str, genre: str) -> None:
    assert TAXONOMY.classify([tag]) == genre
    assert TAXONOMY.classify([tag.upper()]) == genre
    assert TAXONOMY.classify([normalize_tag(tag)]) == genre  # itch.io slug spelling


@pytest.mark.parametrize(
    ("tags", "genre"),
    [
        (["Action", "Racing"], "Racing"),  # 1 beats 1/3 (the paper's example)
        (["Platformer", "Adventure"], "Action"),  # 1/3 beats 1/4
        (["Adventure", "Puzzle"], "Puzzle"),  # 1/2 beats 1/4
        (["Action", "Platformer", "Puzzle"], "Puzzle"),  # two Action tags are still 1/3 < 1/2
        (["Fighting", "Rhythm", "Strategy"], "Fighting"),  # 1 beats 1/2 and 1/3
        (["Survival", "Simulation"], "Survival"),
        (["Visual Novel", "Interactive Fiction"], "Adventure"),
        (["Role Playing", "Sports"], "Simulation"),  # 1/2 beats 1/4
        (["pixel-art", "Shooter", "retro"], "Shooter"),  # non-genre tags ignored
    ],
)
def test_most_specific_genre_wins(tags: list[str], genre: str) -> None:
    assert TAXONOMY.classify(tags) == genre


def test_ties_break_on_tag_count_then_file_order() -> None:
    # Shooter, Survival, Fighting and Racing all have specificity 1: the one listed first wins.
    assert TAXONOMY.classify(["Racing", "Shooter"]) == "Shooter"
    assert TAXONOMY.classify(["Fighting", "Survival"]) == "Survival"
    # Puzzle, Simulation and Strategy have 1/2: two tags of one beat one tag of another.
    assert TAXONOMY.classify(["Card Game", "Puzzle", "Educational"]) == "Puzzle"
    assert TAXONOMY.classify(["Strategy", "Card Game", "Puzzle"]) == "Strategy"
    assert TAXONOMY.classify(["Card Game", "Puzzle"]) == "Puzzle"  # file order
    assert TAXONOMY.classify(["role-playing", "card_game", "sports"]) == "Simulation"


@given(
    st.lists(st.sampled_from([t for t, _ in ALL_TAGS] + ["retro", "cute"]), max_size=6),
    st.randoms(),
)
def test_rule_ignores_tag_order(tags: list[str], rnd) -> None:
    shuffled = list(tags)
    rnd.shuffle(shuffled)
    assert TAXONOMY.classify(tags) == TAXONOMY.classify(shuffled)
    if TAXONOMY.classify(tags) is not None:
        best = TAXONOMY.genre(TAXONOMY.classify(tags)).specificity
        for tag in tags:
            genre = TAXONOMY.genre_of_tag(tag)
            assert genre is None or genre.specificity <= best


def test_untagged_games_have_no_rule_genre() -> None:
    assert TAXONOMY.classify([]) is None
    assert TAXONOMY.classify(["atmospheric", "short"]) is None


def test_a_tag_on_two_genres_is_refused() -> None:
    with pytest.raises(ConfigError, match="both"):
        taxonomy_from_dict(
            {
                "genres": [
                    {"name": "A", "definition": "a", "tags": ["Action"]},
                    {"name": "B", "definition": "b", "tags": ["action"]},
                ]
            }
        )


@pytest.mark.slow
def test_cli_genre() -> None:
    out = subprocess.run(
        [PLAYSUITE, "genre", "--tags", "Action,Racing"], capture_output=True, text=True, timeout=60
    )
    assert (out.returncode, out.stdout.strip()) == (0, "Racing")
    out = subprocess.run(
        [PLAYSUITE, "genre", "--tags", "cute"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2 and "genre tag" in out.stderr


@pytest.mark.slow
def test_cli_triage(tmp_path: Path) -> None:
    from tests.catalog.crafted import file, make_zip

    archive = make_zip(tmp_path / "g.zip", [file("index.html", "<p>hi</p>"), file("../x", "evil")])
    out = subprocess.run(
        [PLAYSUITE, "triage", str(archive), "--rating-count", "80"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["risk"] == 3 and report["policy"] == "monitor"  # 4 traversal - 1 trusted
    assert [s["name"] for s in report["signals"]] == ["path_traversal", "trusted"]
