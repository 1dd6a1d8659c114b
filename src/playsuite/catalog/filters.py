"""Curation filters: an ordered list of stages, each excluding a game with a recorded reason.

A game leaves the funnel at the first stage it fails, and the stage names that exit. Stages come in
four groups run at three points of the workflow:

* ``metadata`` and ``technical`` -- decided from the platform metadata alone (:func:`screen`);
* ``archive`` -- decided from the archive scan: safety triage quarantine and engine fingerprints
  (:func:`archive_exclusion`);
* ``launch`` -- decided from the runtime's launch dry-run result (:func:`launch_exclusion`).

Technical exclusions carry the paper's reasons (Construct runtime, dragging as the only control,
multiplayer only, gamepad required, not an interactive game). They are detected from metadata and
archive contents where possible; the rest come from a hand-kept exclusion list whose reason codes
are the same stage names, so they are counted at the same funnel row.
"""

from __future__ import annotations

import csv
import posixpath
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playsuite.catalog.debian_filters import DEBIAN_CHECKS
from playsuite.catalog.ingest import RawGame, slug
from playsuite.catalog.npm_filters import NPM_CHECKS
from playsuite.catalog.pypi_filters import PYPI_CHECKS


@dataclass(frozen=True)
class FilterSettings:
    """Thresholds of the filters (``catalog.filters`` in the workflow configuration)."""

    min_rating: float = 3.0  # kept when rating > min_rating
    min_rating_count: int = 5  # itch.io: kept when rating_count >= this
    nsfw_tags: tuple[str, ...] = (
        "nsfw",
        "adult",
        "erotic",
        "hentai",
        "porn",
        "sexual-content",
        "nudity",
    )
    pyweek_libraries: tuple[str, ...] = ("pygame", "pygame-ce")
    pyweek_extra_libraries: tuple[str, ...] = ("numpy",)
    non_game_tags: tuple[str, ...] = (
        "kinetic-novel",
        "non-game",
        "asset-pack",
        "soundtrack",
        "animation",
        "screensaver",
    )

    @classmethod
    def from_config(cls, data: dict[str, Any] | None) -> FilterSettings:
        data = dict(data or {})
        for key in ("nsfw_tags", "pyweek_libraries", "pyweek_extra_libraries", "non_game_tags"):
            if key in data:
                data[key] = tuple(slug(t) for t in data[key])
        return cls(**data)


@dataclass(frozen=True)
class Stage:
    name: str
    group: str  # metadata | technical | archive | launch
    sources: tuple[str, ...]
    description: str


@dataclass(frozen=True)
class Decision:
    """Where a game left the funnel (``stage``) and why; ``stage == ""`` means kept."""

    id: str
    source: str
    stage: str = ""
    reason: str = ""

    @property
    def kept(self) -> bool:
        return not self.stage


BOTH = ("itch", "pyweek")
ALL = (*BOTH, "debian", "pypi", "npm")
DEBIAN = ("debian",)
REGISTRIES = ("debian", "pypi", "npm")
#: npm has no ``no_gui`` stage: whether a package holds a page is known after unpacking it
#: (playsuite.catalog.npm_filters)
WINDOWED = ("debian", "pypi")
STAGES: tuple[Stage, ...] = (
    Stage("rating", "metadata", BOTH, "rating above the threshold"),
    Stage("rating_count", "metadata", ("itch",), "enough ratings"),
    Stage("free", "metadata", ("itch",), "free to download"),
    Stage("released", "metadata", ("itch",), "fully released"),
    Stage("platform", "metadata", ("itch",), "Linux or Web build"),
    Stage("input", "metadata", ("itch",), "keyboard and/or mouse"),
    Stage("nsfw", "metadata", BOTH, "no NSFW content"),
    Stage("python3", "metadata", ("pyweek",), "Python 3"),
    Stage("pygame", "metadata", ("pyweek",), "pygame only"),
    Stage("non_free", "metadata", REGISTRIES, "in Debian main / a free licence"),
    Stage("too_big", "metadata", ("npm",), "unpacked size within the npm rules' limit"),
    Stage("not_a_game", "technical", ALL, "an interactive game"),
    Stage("server", "technical", REGISTRIES, "not a server package"),
    Stage("text_mode", "technical", REGISTRIES, "not a text/terminal game"),
    Stage("no_gui", "technical", WINDOWED, "has a GUI (X11 debtag, GUI library or classifier)"),
    Stage("network", "technical", REGISTRIES, "no network debtag / classifier / text"),
    Stage("multiplayer_only", "technical", ALL, "playable by one player"),
    Stage("gamepad_required", "technical", ALL, "no gamepad required"),
    Stage("drag_only", "technical", BOTH, "not dragging-only controls"),
    Stage("triage", "archive", ALL, "archive readable and not quarantined"),
    Stage("construct_runtime", "archive", BOTH, "not the Construct runtime"),
    Stage("launch", "launch", ALL, "launch dry-run succeeds"),
)
STAGE_NAMES = tuple(s.name for s in STAGES)
MANUAL_CODES = tuple(s.name for s in STAGES if s.group in ("technical", "archive", "launch"))


def stage(name: str) -> Stage:
    for item in STAGES:
        if item.name == name:
            return item
    raise KeyError(name)


# ---------------------------------------------------------------------------------------------
# metadata stages


def _rating(game: RawGame, s: FilterSettings) -> str | None:
    if game.rating is None:
        return "no rating"
    if game.rating <= s.min_rating:
        return f"rating {game.rating:g} <= {s.min_rating:g}"
    return None


def _rating_count(game: RawGame, s: FilterSettings) -> str | None:
    count = game.rating_count or 0
    if count < s.min_rating_count:
        return f"{count} ratings < {s.min_rating_count}"
    return None


def _free(game: RawGame, s: FilterSettings) -> str | None:
    return None if game.free else "paid"


def _released(game: RawGame, s: FilterSettings) -> str | None:
    if game.release_status != "released":
        return f"release status {game.release_status or 'unknown'!r}"
    return None


def _platform(game: RawGame, s: FilterSettings) -> str | None:
    if not {"web", "linux"} & set(game.platforms):
        return f"no Linux or Web build (platforms: {', '.join(game.platforms) or 'none'})"
    if game.build not in ("web", "linux"):
        return f"archived build {game.build or 'unknown'!r} is neither Linux nor Web"
    return None


def _input(game: RawGame, s: FilterSettings) -> str | None:
    if not {"keyboard", "mouse"} & set(game.input_methods):
        return f"no keyboard or mouse input (inputs: {', '.join(game.input_methods) or 'none'})"
    return None


def _nsfw(game: RawGame, s: FilterSettings) -> str | None:
    if game.nsfw:
        return "flagged NSFW"
    marked = sorted({slug(t) for t in (*game.tags, *game.content_warnings)} & set(s.nsfw_tags))
    if marked:
        return f"NSFW tags: {', '.join(marked)}"
    return None


_VERSION = re.compile(r"(\d+)(?:\.(\d+))?")


def _python3(game: RawGame, s: FilterSettings) -> str | None:
    match = _VERSION.search(game.python_version)
    if not match:
        return "Python version not stated"
    if match.group(1) != "3":
        return f"Python {game.python_version}"
    return None


def _pygame(game: RawGame, s: FilterSettings) -> str | None:
    libs = set(game.library)
    if not libs:
        return "library not stated"
    if not libs & set(s.pyweek_libraries):
        return f"not pygame ({', '.join(sorted(libs))})"
    others = libs - set(s.pyweek_libraries) - set(s.pyweek_extra_libraries)
    if others:
        return f"pygame with {', '.join(sorted(others))}"
    return None


# ---------------------------------------------------------------------------------------------
# technical stages detectable from metadata


def _not_a_game(game: RawGame, s: FilterSettings) -> str | None:
    if game.classification != "game":
        return f"not an interactive game (itch.io kind {game.classification!r})"
    marked = sorted({slug(t) for t in game.tags} & set(s.non_game_tags))
    if marked:
        return f"not an interactive game (tags: {', '.join(marked)})"
    return None


_MULTI_TEXT = re.compile(
    r"\b(multiplayer[- ]only|online[- ]only|(two|2)[- ]players?[- ]only|"
    r"(requires|needs) (at least )?(two|2|a second) (players?|people)|"
    r"no single[- ]player)\b",
    re.IGNORECASE,
)


def min_players(game: RawGame) -> int | None:
    """The smallest player count the metadata states (``"2"``, ``"2-4"``), if any."""
    match = re.match(r"\s*(\d+)", game.players)
    return int(match.group(1)) if match else None


def _multiplayer_only(game: RawGame, s: FilterSettings) -> str | None:
    if (min_players(game) or 1) >= 2:
        return f"multiplayer only ({game.players} players)"
    text = f"{game.description}\n{game.controls}"
    found = _MULTI_TEXT.search(text)
    if found:
        return f"multiplayer only ({found.group(0)!r})"
    return None


_PAD_TEXT = re.compile(
    r"\b((gamepad|controller|joystick)s?\s+(is\s+|are\s+)?(required|needed|only)|"
    r"requires?\s+an?\s+(gamepad|controller|joystick)|"
    r"(gamepad|controller|joystick)[- ]only|"
    r"(needs|need)\s+an?\s+(gamepad|controller|joystick))\b",
    re.IGNORECASE,
)


def _gamepad_required(game: RawGame, s: FilterSettings) -> str | None:
    found = _PAD_TEXT.search(f"{game.description}\n{game.controls}")
    if found:
        return f"gamepad required ({found.group(0)!r})"
    return None


_RELEASE = re.compile(r"\b(release|releasing|let go)\b", re.IGNORECASE)
_DRAG = re.compile(r"\bdrag(s|ging|ged)?\b", re.IGNORECASE)
_CONTROL = re.compile(
    r"\b(press|presses|pressing|hold|type|typing|tap|scroll|key|keys|keyboard|wasd|zqsd|arrows?|"
    r"space|spacebar|enter|return|shift|ctrl|control|esc|escape|tab|[a-z0-9]\s+key|"
    r"click|clicks|clicking|mouse|jump|shoot|move|aim)\b",
    re.IGNORECASE,
)


def drag_only(controls: str) -> bool:
    """Whether every control the text describes is a drag.

    The text is cut into clauses (lines, sentences, ``;`` and ``,``); a clause with a drag verb is
    a drag control, a clause that releases the drag belongs to it, and a clause naming a key,
    click or other verb without a drag is another control.
    """
    clauses = [c for c in re.split(r"[\n;,.]", controls) if c.strip()]
    drags = [c for c in clauses if _DRAG.search(c)]
    # "release to shoot" / "let go to throw" finish a drag; they are not a second control
    others = [
        c for c in clauses if not _DRAG.search(c) and not _RELEASE.search(c) and _CONTROL.search(c)
    ]
    return bool(drags) and not others


def _drag_only(game: RawGame, s: FilterSettings) -> str | None:
    if game.controls and drag_only(game.controls):
        return "dragging is the only listed control"
    return None


_CHECKS: dict[str, Callable[[RawGame, FilterSettings], str | None]] = {
    "rating": _rating,
    "rating_count": _rating_count,
    "free": _free,
    "released": _released,
    "platform": _platform,
    "input": _input,
    "nsfw": _nsfw,
    "python3": _python3,
    "pygame": _pygame,
    "not_a_game": _not_a_game,
    "multiplayer_only": _multiplayer_only,
    "gamepad_required": _gamepad_required,
    "drag_only": _drag_only,
}


# ---------------------------------------------------------------------------------------------
# manual exclusions


@dataclass(frozen=True)
class ManualExclusion:
    id: str
    code: str
    note: str


def load_manual_exclusions(path: str | Path | None) -> dict[str, ManualExclusion]:
    """Read a hand-kept exclusion list: TSV with ``id``, ``reason`` (a stage code) and ``note``."""
    if not path:
        return {}
    out: dict[str, ManualExclusion] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t")
        missing = {"id", "reason"} - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{path}: missing columns {', '.join(sorted(missing))}")
        for number, row in enumerate(reader, 2):
            code = (row.get("reason") or "").strip()
            if code not in MANUAL_CODES:
                raise ValueError(
                    f"{path}:{number}: reason {code!r} is not one of {', '.join(MANUAL_CODES)}"
                )
            game_id = (row.get("id") or "").strip()
            out[game_id] = ManualExclusion(game_id, code, (row.get("note") or "").strip())
    return out


def _manual(game: RawGame, name: str, manual: dict[str, ManualExclusion]) -> str | None:
    item = manual.get(game.id)
    if item is not None and item.code == name:
        return f"manual: {item.note}" if item.note else "manual exclusion"
    return None


def _check(game: RawGame, name: str, settings: FilterSettings) -> str | None:
    """The stage's detector: a registry package's own (Debian: debtags, section; PyPI:
    classifiers, requirements; npm: the manifest's evidence) first, then the text detector the
    stage shares with the dumps, where there is one."""
    own = _REGISTRY_CHECKS.get(game.source, {})
    if name in own:
        reason = own[name](game)
        if reason or name not in _CHECKS:
            return reason
    return _CHECKS[name](game, settings)


_REGISTRY_CHECKS = {"debian": DEBIAN_CHECKS, "pypi": PYPI_CHECKS, "npm": NPM_CHECKS}


# ---------------------------------------------------------------------------------------------
# the three decision points


def screen(
    game: RawGame,
    settings: FilterSettings,
    manual: dict[str, ManualExclusion] | None = None,
    skip: Collection[str] = (),
) -> Decision:
    """Run the metadata and technical stages; the first failure decides. ``skip``: stages whose
    text detector a model overruled for this game (playsuite.catalog.technical)."""
    manual = manual or {}
    for item in STAGES:
        if item.group not in ("metadata", "technical") or item.name in skip:
            continue
        if game.source not in item.sources:
            continue
        reason = _manual(game, item.name, manual) or _check(game, item.name, settings)
        if reason:
            return Decision(game.id, game.source, item.name, reason)
    return Decision(game.id, game.source)


_CONSTRUCT_FILES = {"c2runtime.js", "c3runtime.js", "c3main.js"}


def construct_evidence(names: Iterable[str], made_with: Iterable[str] = ()) -> str | None:
    """Evidence that a game runs on Construct 2/3, whose Web-Worker game loop cannot be frozen."""
    for tool in made_with:
        if "construct" in tool.lower():
            return f"made with {tool}"
    for name in names:
        base = posixpath.basename(name).lower()
        if base in _CONSTRUCT_FILES or "/c3runtime/" in f"/{name.lower()}/":
            return f"archive contains {name}"
    return None


@dataclass
class ArchiveFacts:
    """What the archive stage needs from the scan (one line of the triage table)."""

    risk: int
    policy: str
    signals: list[dict[str, Any]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)


def archive_exclusion(
    game: RawGame, facts: ArchiveFacts, manual: dict[str, ManualExclusion] | None = None
) -> Decision:
    """The archive stages: quarantine by triage, then engine fingerprints."""
    manual = manual or {}
    reason = _manual(game, "triage", manual)
    if not reason and facts.policy == "quarantine":
        names = ", ".join(s["name"] for s in facts.signals if s["weight"] > 0)
        reason = f"quarantined (risk {facts.risk}: {names})"
    if reason:
        return Decision(game.id, game.source, "triage", reason)
    evidence = construct_evidence(facts.names, game.made_with)
    reason = _manual(game, "construct_runtime", manual) or (
        f"Construct runtime: Web-Worker game loop cannot be frozen ({evidence})"
        if evidence
        else None
    )
    if reason:
        return Decision(game.id, game.source, "construct_runtime", reason)
    return Decision(game.id, game.source)


#: statuses of a launch-validation result file (DESIGN.md episode statuses)
LAUNCH_STATUSES = ("ok", "crashed", "timeout", "launch_failed", "sandbox_violation")


def launch_exclusion(
    game: RawGame,
    result: dict[str, Any] | None,
    manual: dict[str, ManualExclusion] | None = None,
) -> Decision:
    """The launch stage, from the runtime's launch-validation result (``None``: not run).

    Accepts the result of :func:`playsuite.runtimes.validate.validate_launch`: ``status`` (an
    episode status) and ``ok`` (false when frames stay blank or ignore input), ``error``.
    """
    reason = _manual(game, "launch", manual or {})
    if not reason and result is not None:
        status = result.get("status")
        if status not in LAUNCH_STATUSES:
            raise ValueError(f"launch result for {game.id}: unknown status {status!r}")
        if result.get("game", game.id) != game.id:
            raise ValueError(f"launch result for {game.id} names game {result.get('game')!r}")
        ok = result.get("ok", True) is True  # the runtime's validator also sets ``ok``
        if status != "ok" or not ok:
            error = result.get("error") or ""
            what = status if status != "ok" else "failed"
            reason = f"launch dry-run {what}" + (f": {error}" if error else "")
    if reason:
        return Decision(game.id, game.source, "launch", reason)
    return Decision(game.id, game.source)


def stage_descriptions(settings: FilterSettings) -> dict[str, str]:
    """What a game needs to pass each stage, with this configuration's thresholds."""
    out = {s.name: s.description for s in STAGES}
    out["rating"] = f"rating > {settings.min_rating:.1f}"
    out["rating_count"] = f"at least {settings.min_rating_count} ratings"
    return out
