"""Filter stages of npm packages, decided from the evidence the ingest read in the manifest.

An npm package's latest manifest is all the registry says before the tarball is unpacked: its
name, description and keywords, the commands it installs (``bin``), its dependencies and peer
dependencies, its licence and its unpacked size. The ingest (:mod:`playsuite.catalog.npm_index`)
reads it with the word lists of ``config/catalog/npm.yaml`` and records what it found in the
record's ``made_with`` as labelled evidence, ``"{kind}: {what}"`` (``"terminal: command guess
(bin)"``, ``"page: dependency phaser"``, ``"not a game: scope @types"``), the way the PyPI ingest
records GUI evidence there. So these checks need no configuration, and each reason names the
evidence: a reader of the survey sees why, not only where, a package left.

Every candidate the registry knows is a record (a survey needs an outcome for each), so most
records these checks see are not games at all: components for someone else's app, type
definitions, tools, command-line programs. Whether a package holds a page to play is only known
after unpacking it; the launch check finds its entry (:mod:`playsuite.catalog.npm_entry`), so
there is no ``no_gui`` stage for npm. The stage table and order are in
:mod:`playsuite.catalog.filters`, which runs the dumps' text detectors after these where a stage
has one (``not_a_game``, ``multiplayer_only``, ``gamepad_required``).
"""

from __future__ import annotations

from collections.abc import Callable

from playsuite.catalog.ingest import RawGame

#: Kinds of evidence the ingest records in ``made_with`` (see the module docstring).
PAGE = "page"
TERMINAL = "terminal"
NOT_A_GAME = "not a game"
SERVER = "server"
NETWORK = "network"
TOO_BIG = "too big"
LICENCE = "licence"
KINDS = (PAGE, TERMINAL, NOT_A_GAME, SERVER, NETWORK, TOO_BIG, LICENCE)


def label(kind: str, what: str) -> str:
    """One item of evidence as the record keeps it."""
    return f"{kind}: {what}"


def evidence(game: RawGame, kind: str) -> list[str]:
    """What the ingest found of ``kind`` (the text after the label)."""
    prefix = f"{kind}: "
    return [item[len(prefix) :] for item in game.made_with if item.startswith(prefix)]


def non_free(game: RawGame) -> str | None:
    if not game.free:
        licence = ", ".join(evidence(game, LICENCE)) or "a non-free licence"
        return f"not a free licence ({licence})"
    return None


def too_big(game: RawGame) -> str | None:
    found = evidence(game, TOO_BIG)
    return f"too big to fetch for a survey ({found[0]})" if found else None


def not_a_game(game: RawGame) -> str | None:
    found = evidence(game, NOT_A_GAME)
    return f"not a game ({'; '.join(found)})" if found else None


def server(game: RawGame) -> str | None:
    found = evidence(game, SERVER)
    return f"server or bot package ({'; '.join(found)})" if found else None


def text_mode(game: RawGame) -> str | None:
    """A terminal program: it installs a command or reads the keyboard through a terminal
    library, and nothing in the manifest suggests a page (a page keyword or library, an HTML
    ``main``). A game that has both is left to the launch check, which looks for its page."""
    terminal = evidence(game, TERMINAL)
    if terminal and not evidence(game, PAGE):
        return f"command-line only ({'; '.join(terminal)}; nothing suggests a page)"
    return None


def network(game: RawGame) -> str | None:
    found = evidence(game, NETWORK)
    return f"needs the network ({'; '.join(found)})" if found else None


#: stage name -> npm check (the stages' order and descriptions are in filters.STAGES)
NPM_CHECKS: dict[str, Callable[[RawGame], str | None]] = {
    "non_free": non_free,
    "too_big": too_big,
    "not_a_game": not_a_game,
    "server": server,
    "text_mode": text_mode,
    "network": network,
}
