"""Filter stages of PyPI projects, decided from classifiers, requirements and the summary.

A PyPI project says what it is through its trove classifiers (``License ::``, ``Environment ::``,
``Topic ::``), its requirements (pygame draws a window) and its one-line summary. Most projects
that require pygame are not games but libraries for making them (menus, widgets, engines), and
many carry no classifier at all, so ``not_a_game`` also reads the summary. Each check returns the
reason a project is excluded, naming the evidence, or ``None``; the stage table and order are in
:mod:`playsuite.catalog.filters`, which runs the dumps' text detectors after these where a stage
has one (``multiplayer_only``, ``gamepad_required``).

The word lists that change with the registry (GUI libraries and classifiers, non-free licence
classifiers) are the ingest's rules (``config/catalog/pypi.yaml``): the ingest records a
project's GUI evidence in ``made_with`` (besides pygame in ``library``) and a non-free licence
classifier as ``free = False``, so these checks need no configuration.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from playsuite.catalog.ingest import RawGame

GAMES_TOPIC = "Topic :: Games/Entertainment"
LIBRARY_TOPICS = ("Topic :: Software Development :: Libraries", "Topic :: Software Development")
CONSOLE = ("Environment :: Console",)
NETWORK_TOPICS = ("Topic :: Internet", "Topic :: Communications", "Topic :: System :: Networking")
#: A summary that describes a tool for making games, or another program, rather than a game.
LIBRARY_TEXT = re.compile(
    r"\b(librar(y|ies)|framework|engine|toolkit|wrapper|widgets?|modules?|package|"
    r"utilit(y|ies)|helpers?|bindings|api|sdk|extension|plugin|add-?on|gui|ui|interface|"
    r"menus?|controls|class(es)?|sprites?|animations?|particles?|charts?|graphs?|plot(ting)?|"
    r"(music|mp3|audio|video|media) player|development|developers?|tools?|bridge|overlay|"
    r"helps?|system|tutor(ial)?s?|print)\b",
    re.IGNORECASE,
)
#: A summary that describes a game ("game engine", "game development" are tools, not games).
GAME_TEXT = re.compile(
    r"\b(game(?!\s+(engine|development|dev|framework|library|maker|creation|programming))|"
    r"clone|remake|recreation|implementation of|version of|puzzle|shooter|platformer|"
    r"invaders|tetris|snake|pong|chess|tic[- ]tac[- ]toe|connect (four|4)|sudoku|solitaire)\b",
    re.IGNORECASE,
)
NETWORK_TEXT = re.compile(
    r"\b(online[- ](multiplayer|game|only)|multiplayer[- ]online|mmo(rpg)?|"
    r"(game|dedicated) server|server for|client for|over the (network|internet)|"
    r"lan[- ]game|network(ed)? (multiplayer|game)|requires? an? internet connection)\b",
    re.IGNORECASE,
)
SERVER_NAME = re.compile(r"-(server|dedicated|dedicated-server|bot)$")


def _classifiers(game: RawGame, prefix: str | tuple[str, ...]) -> list[str]:
    return [t for t in game.tags if "::" in t and t.startswith(prefix)]


def non_free(game: RawGame) -> str | None:
    if not game.free:
        licences = ", ".join(_classifiers(game, "License ::")) or "licence classifier"
        return f"not a free licence ({licences})"
    return None


def not_a_game(game: RawGame) -> str | None:
    """A library by classifier (without a game topic), or a summary that names a tool or
    another kind of program before it names a game ("a pygame wrapper for easier game
    development", but not "a Connect Four game using the X library")."""
    games = _classifiers(game, GAMES_TOPIC)
    libraries = _classifiers(game, LIBRARY_TOPICS)
    if libraries and not games:
        return f"a library ({libraries[0]}, no {GAMES_TOPIC} classifier)"
    tool = LIBRARY_TEXT.search(game.description)
    named = GAME_TEXT.search(game.description)
    if tool and (named is None or tool.start() < named.start()):
        return f"a library or tool, not a game (summary: {tool.group(0)!r})"
    return None


def server(game: RawGame) -> str | None:
    if SERVER_NAME.search(game.source_id):
        return f"server or bot package ({game.source_id})"
    return None


def _gui_evidence(game: RawGame) -> list[str]:
    return [*game.library, *game.made_with]


def text_mode(game: RawGame) -> str | None:
    console = _classifiers(game, CONSOLE)
    if console and not _gui_evidence(game):
        return f"text/terminal game ({console[0]})"
    return None


def no_gui(game: RawGame) -> str | None:
    if _gui_evidence(game):
        return None
    return "no GUI evidence (no pygame or GUI library requirement, no GUI classifier)"


def network(game: RawGame) -> str | None:
    topics = _classifiers(game, NETWORK_TOPICS)
    if topics and not _classifiers(game, GAMES_TOPIC):
        return f"a network program ({topics[0]})"
    found = NETWORK_TEXT.search(game.description)
    if found:
        return f"needs the network ({found.group(0)!r})"
    return None


#: stage name -> PyPI check (the stages' order and descriptions are in filters.STAGES)
PYPI_CHECKS: dict[str, Callable[[RawGame], str | None]] = {
    "non_free": non_free,
    "not_a_game": not_a_game,
    "server": server,
    "text_mode": text_mode,
    "no_gui": no_gui,
    "network": network,
}
