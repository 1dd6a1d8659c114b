"""Filter stages of Debian packages, decided from debtags, section, name and dependencies.

A Debian game carries no ratings, store page or player count; its debtags say what kind of
program it is (``interface::x11``, ``interface::text-mode``, ``network::server``,
``role::app-data``). Each check returns the reason a package is excluded, naming the evidence,
or ``None``. The stage table and the order live in :mod:`playsuite.catalog.filters`; for the
stages shared with the dump sources (``not_a_game``, ``multiplayer_only``) the Debian check runs
first and the dumps' text detector after it.

``hardware::input:joystick`` marks joystick support, not a need (SuperTux carries it as its
only input debtag and plays by keyboard), so ``gamepad_required`` keeps its text detector only.
The debtag vocabulary cannot tell an optional network mode from a required one, so
``network::client``/``network::server``/``network::service`` exclude a package (conservative:
the benchmark runs games offline). Untagged packages (about one in six in bookworm's games
section) have only their dependencies: a graphics or windowing library counts as a GUI.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from playsuite.catalog.ingest import RawGame

GUI_TAGS = ("interface::x11", "interface::graphical", "x11::application", "interface::3d")
TEXT_TAGS = ("interface::text-mode", "interface::commandline", "uitoolkit::ncurses")
NETWORK_TAGS = ("network::client", "network::server", "network::service")
NOT_A_GAME_ROLES = (
    "role::app-data",
    "role::data",
    "role::documentation",
    "role::devel-lib",
    "role::shared-lib",
    "role::plugin",
    "role::metapackage",
    "x11::screensaver",
    "x11::theme",
)
#: Name suffixes of the packages a game is split into besides its program.
NOT_A_GAME_SUFFIXES = ("-data", "-common", "-doc", "-dbg", "-music", "-sounds", "-dev", "-l10n")
#: Words of a package summary (its description's first line, the record's title) that make it a
#: tool around games: "Development tools for creating SLUDGE adventure games", "convert PGN
#: chess game files into webpages", "(ruleset tools)". A game's summary that mentions its own
#: level editor ("... with a level editor") does not match: the words must lead the summary or
#: name the package's whole purpose.
TOOL_SUMMARY = re.compile(
    r"^\s*(convert|development tools?|tools? for|editor for|level editor|map editor|"
    r"screensavers?)\b|\b(devkit|ruleset tools|screensavers?|keyboard sound)\b|\(.*tools\)",
    re.IGNORECASE,
)
GAME_WORD = re.compile(r"\b(games?|puzzles?|tic.?tac.?toe)\b", re.IGNORECASE)
SERVER_NAME = re.compile(r"-(server|dedicated|dedicated-server|ded)$")
#: Dependencies that draw a window: evidence of a GUI for a package without debtags.
GUI_LIBRARY = re.compile(
    r"^(libsdl|libx11|libxext|libgl1|libglx|libopengl|libegl|libgtk|libqt|qt6-|libkf5|libkf6|"
    r"libsfml|liballegro|libglfw|libglut|freeglut|libfltk|libwx|libclutter|libgdk|libcairo|"
    r"python3-pygame|python3-pyglet|python3-gi|python3-pyqt|python3-tk|love$|tk\d|libtk)"
)


def _summary(game: RawGame) -> str:
    """The package's one-line summary (the first line of its description)."""
    return game.description.split("\n", 1)[0]


def _has(game: RawGame, tags: tuple[str, ...]) -> list[str]:
    return [t for t in game.tags if t in tags]


def non_free(game: RawGame) -> str | None:
    area = game.section.split("/", 1)[0] if "/" in game.section else "main"
    if area in ("non-free", "contrib", "non-free-firmware"):
        return f"not in Debian main (section {game.section})"
    return None


def not_a_game(game: RawGame) -> str | None:
    roles = _has(game, NOT_A_GAME_ROLES)
    if roles and "role::program" not in game.tags:
        return f"not a program ({', '.join(roles)})"
    if "x11::screensaver" in game.tags:  # a program, but one that draws on the root window
        return "a screensaver or desktop decoration (x11::screensaver)"
    genres = [t for t in game.tags if t.startswith("game::")]
    # bambam is game::arcade too, and blinken's summary calls it a memory game: both stay
    if genres == ["game::toys"] and not GAME_WORD.search(_summary(game)):
        return "a desktop toy (game::toys, no game genre, no game in its summary)"
    summary = TOOL_SUMMARY.search(_summary(game))
    if summary:
        return f"a tool, not a game ({summary.group(0).strip()!r} in its summary)"
    # by name even when tagged role::program (asc-music is): the program is the package beside it
    suffix = next((s for s in NOT_A_GAME_SUFFIXES if game.source_id.endswith(s)), None)
    if suffix:
        return f"a game's {suffix[1:]} package, not its program"
    if "devel::library" in game.tags:
        return "a library (devel::library)"
    return None


def server(game: RawGame) -> str | None:
    if SERVER_NAME.search(game.source_id):
        return f"server package ({game.source_id})"
    if "interface::daemon" in game.tags:
        return "server package (interface::daemon)"
    return None


def text_mode(game: RawGame) -> str | None:
    text = _has(game, TEXT_TAGS)
    if text and not _has(game, GUI_TAGS):
        return f"text/terminal game ({', '.join(text)})"
    return None


def no_gui(game: RawGame) -> str | None:
    if _has(game, GUI_TAGS):
        return None
    if any(t.startswith("interface::") for t in game.tags):
        kinds = ", ".join(t for t in game.tags if t.startswith("interface::"))
        return f"no GUI ({kinds})"
    if any(GUI_LIBRARY.match(d) for d in game.depends):
        return None
    if any("::" in t for t in game.tags):  # debtags, not the genre tags the ingest added
        return "no GUI (no interface:: debtag and no graphics library dependency)"
    return "no GUI evidence (untagged, no graphics library dependency)"


def network(game: RawGame) -> str | None:
    found = _has(game, NETWORK_TAGS)
    if found:
        return f"uses the network ({', '.join(found)})"
    return None


def multiplayer_only(game: RawGame) -> str | None:
    if "game::mud" in game.tags:
        return "multiplayer only (game::mud)"
    return None


#: stage name -> Debian check (the stages' order and descriptions are in filters.STAGES)
DEBIAN_CHECKS: dict[str, Callable[[RawGame], str | None]] = {
    "non_free": non_free,
    "not_a_game": not_a_game,
    "server": server,
    "text_mode": text_mode,
    "no_gui": no_gui,
    "network": network,
    "multiplayer_only": multiplayer_only,
}
