"""Only games: the Debian screen's not-a-game rule on packages of bookworm's games section, with
the debtags and summaries the archive gives them (screensavers, desktop toys, tools around
games are excluded; games tagged as toys too, or whose summary says game, are kept). The
conformance run's evidence is the other half: a program whose screen no input changes fails
its input check (tests/catalog/test_survey.py shows that outcome in the survey)."""

from __future__ import annotations

import pytest

from playsuite.catalog.debian_filters import no_gui, not_a_game
from playsuite.catalog.ingest import RawGame

X11 = ("interface::graphical", "interface::x11", "role::program", "x11::application")


def package(name: str, summary: str, *tags: str) -> RawGame:
    return RawGame(
        id=f"debian-{name}", source="debian", source_id=name, title=name,
        description=f"{summary}\n Longer text of the package.", tags=(*X11, *tags),
        section="games",
    )  # fmt: skip


NON_GAMES = [
    package("xsnow", "brings Christmas to your desktop", "game::toys", "use::entertaining"),
    package("xfishtank", "turns your X root into an aquarium", "game::toys", "x11::screensaver"),
    package("xcowsay", "Graphical configurable talking cow", "game::toys"),
    package("xaos", "real-time interactive fractal zoomer", "game::toys", "use::gameplaying"),
    package("rss-glx", "Really Slick Screensavers GLX Port", "x11::screensaver"),
    package(
        "sludge-devkit",
        "Development tools for creating SLUDGE adventure games",
        "game::adventure",
        "use::editing",
        "use::gameplaying",
    ),
    package("freeciv-ruleset-tools", "Civilization turn based strategy game (ruleset tools)"),
    package("pgn2web", "convert PGN chess game files into webpages", "game::board:chess"),
    package("wesnoth-1.16-tools", "tools for campaign developers for Wesnoth (branch 1.16)"),
]
GAMES = [
    package("supertux", "Classic 2D jump 'n run sidescroller with Tux", "game::platform"),
    package(
        "bambam", "keyboard mashing and doodling game for babies", "game::arcade", "game::toys"
    ),
    package("blinken", "KDE version of the Simon electronic memory game", "game::toys"),
    package("lbreakout2", "ball-and-paddle game with nice graphics", "game::arcade"),
    package("ballz", "B.A.L.L.Z. - platform/puzzle game where you control a rolling ball"),
    package("0ad", "Real-time strategy game of ancient warfare", "game::strategy"),
    package("pingus", "Lemmings(TM) clone, with a level editor", "game::puzzle"),
    package("ktouch", "touch typing tutor for KDE", "game::typing", "use::learning"),
]


@pytest.mark.parametrize("game", NON_GAMES, ids=lambda g: g.source_id)
def test_a_non_game_of_the_games_section_is_excluded_with_its_evidence(game: RawGame) -> None:
    reason = not_a_game(game)
    assert reason is not None
    assert any(word in reason for word in ("toy", "screensaver", "tool")), reason


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.source_id)
def test_a_game_stays(game: RawGame) -> None:
    assert not_a_game(game) is None


def test_an_untagged_game_that_links_a_graphics_library_has_a_gui() -> None:
    untagged = RawGame(
        id="debian-2048-qt", source="debian", source_id="2048-qt", title="2048-qt",
        description="mathematics based puzzle game", depends=("libc6", "libqt5gui5"),
    )  # fmt: skip
    assert not_a_game(untagged) is None and no_gui(untagged) is None
