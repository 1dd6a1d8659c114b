"""Ingest of the sample dumps, each filter stage with its reason, manual exclusions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from playsuite.catalog.filters import (
    STAGES,
    ArchiveFacts,
    FilterSettings,
    archive_exclusion,
    drag_only,
    launch_exclusion,
    load_manual_exclusions,
    screen,
)
from playsuite.catalog.ingest import DumpError, RawGame, read_dump

DATA = Path(__file__).resolve().parents[1] / "data" / "catalog"
SETTINGS = FilterSettings()


@pytest.fixture(scope="module")
def itch() -> dict[str, RawGame]:
    return {g.id: g for g in read_dump(DATA / "itch_sample.jsonl", "itch")}


@pytest.fixture(scope="module")
def pyweek() -> dict[str, RawGame]:
    return {g.id: g for g in read_dump(DATA / "pyweek_sample.csv", "pyweek")}


def test_itch_dump_is_normalised(itch) -> None:
    game = itch["itch-1002"]
    assert (game.title, game.rating, game.rating_count, game.free) == (
        "Crate Stacker",
        3.9,
        14,
        True,
    )
    assert game.platforms == ("web", "windows") and game.build == "web"
    assert game.input_methods == ("keyboard", "mouse")
    assert game.release_status == "released" and game.start == "index.html"
    assert game.runtime == "browser"
    assert itch["itch-1005"].free is False  # price 4.99
    assert itch["itch-1008"].input_methods == ("gamepad",)
    assert itch["itch-1010"].classification == "asset"
    assert itch["itch-1019"].runtime == "native" and itch["itch-1019"].start == ""


def test_pyweek_csv_is_normalised(pyweek) -> None:
    game = pyweek["pyweek-35-clockwork"]
    assert game.python_version == "3.10" and game.library == ("pygame",)
    assert game.diary == ("Day 1: gears drawn", "Day 5: the tower ticks")  # JSON list in CSV
    assert game.runtime == "pygame" and game.start == "run_game.py"
    assert pyweek["pyweek-34-vector"].library == ("pygame", "pyopengl")  # ;-separated


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"title": "x"}', "required field 'id'"),
        ('{"id": "1", "title": "x", "rating": "great"}', "not a number"),
        ('{"id": "1", "title": "x", "rating_count": 2.5}', "not a count"),
        ('{"id": "1", "title": "x", "nsfw": "maybe"}', "not a boolean"),
        ('{"id": "1", "title": "x"}\n{"id": "1", "title": "y"}', "duplicate id"),
        ("[1, 2]", "JSON object"),
        ("{oops", "not JSON"),
    ],
)
def test_bad_rows_name_file_and_line(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "dump.jsonl"
    path.write_text(text + "\n")
    with pytest.raises(DumpError, match=error) as info:
        read_dump(path, "itch")
    assert "dump.jsonl:" in str(info.value)


def test_unknown_source_and_format(tmp_path: Path) -> None:
    with pytest.raises(DumpError, match="unknown source"):
        read_dump(DATA / "itch_sample.jsonl", "steam")
    (tmp_path / "d.xml").write_text("<x/>")
    with pytest.raises(DumpError, match=r"jsonl or \.csv"):
        read_dump(tmp_path / "d.xml", "itch")


EXPECTED = {
    "itch-1001": ("", ""),
    "itch-1003": ("rating", "rating 2.8 <= 3"),
    "itch-1004": ("rating_count", "3 ratings < 5"),
    "itch-1005": ("free", "paid"),
    "itch-1006": ("released", "in-development"),
    "itch-1007": ("platform", "no Linux or Web build"),
    "itch-1008": ("input", "no keyboard or mouse"),
    "itch-1009": ("nsfw", "NSFW"),
    "itch-1010": ("not_a_game", "itch.io kind 'asset'"),
    "itch-1011": ("multiplayer_only", "2 players"),
    "itch-1012": ("gamepad_required", "controller is required"),
    "itch-1013": ("drag_only", "dragging"),
    "itch-1021": ("", ""),
    "pyweek-12-oldie": ("python3", "Python 2.7"),
    "pyweek-30-glyph": ("pygame", "not pygame (pyglet)"),
    "pyweek-33-meh": ("rating", "2.5"),
    "pyweek-34-vector": ("pygame", "with pyopengl"),
    "pyweek-36-lanparty": ("multiplayer_only", "2 players"),
    "pyweek-32-drift": ("", ""),  # numpy is an allowed companion of pygame
}


@pytest.mark.parametrize(("game_id", "expected"), EXPECTED.items())
def test_screen_stage_and_reason(itch, pyweek, game_id, expected) -> None:
    game = {**itch, **pyweek}[game_id]
    decision = screen(game, SETTINGS)
    assert decision.stage == expected[0]
    assert expected[1] in decision.reason


def test_thresholds_come_from_settings(itch) -> None:
    game = itch["itch-1018"]  # rating 3.3, 5 ratings
    assert screen(game, SETTINGS).kept
    assert screen(game, FilterSettings(min_rating_count=6)).stage == "rating_count"
    assert screen(game, FilterSettings(min_rating=3.3)).stage == "rating"  # strictly greater
    assert screen(replace(game, rating=None), SETTINGS).reason == "no rating"


def test_nsfw_tags_and_warnings(itch) -> None:
    game = replace(itch["itch-1001"], tags=("Action", "Hentai"))
    assert screen(game, SETTINGS).stage == "nsfw"
    game = replace(itch["itch-1001"], content_warnings=("nudity",))
    assert screen(game, SETTINGS).stage == "nsfw"
    assert screen(replace(itch["itch-1001"], content_warnings=("violence",)), SETTINGS).kept


@pytest.mark.parametrize(
    ("controls", "only"),
    [
        ("Click and drag pieces into place.", True),
        ("Drag to aim, release to shoot", True),
        ("Use the mouse to drag blocks", True),
        ("Drag pieces. Press R to restart", False),
        ("Click to select, drag to move", False),
        ("Arrow keys move, Space jumps", False),
        ("Slay the dragon with the arrow keys", False),
        ("", False),
    ],
)
def test_drag_only(controls: str, only: bool) -> None:
    assert drag_only(controls) is only


def test_manual_exclusions(tmp_path: Path, itch) -> None:
    manual = load_manual_exclusions(DATA / "exclusions.tsv")
    assert manual["itch-1023"].code == "not_a_game"
    decision = screen(itch["itch-1023"], SETTINGS, manual)
    assert (decision.stage, decision.reason) == (
        "not_a_game",
        "manual: " + manual["itch-1023"].note,
    )
    bad = tmp_path / "x.tsv"
    bad.write_text("id\treason\tnote\nitch-1\ttoo_hard\tno\n")
    with pytest.raises(ValueError, match="too_hard"):
        load_manual_exclusions(bad)


def test_archive_and_launch_stages(itch) -> None:
    game = itch["itch-1001"]
    quarantine = ArchiveFacts(4, "quarantine", [{"name": "path_traversal", "weight": 4}], [])
    assert archive_exclusion(game, quarantine).stage == "triage"
    construct = ArchiveFacts(0, "clean", [], ["index.html", "scripts/c3runtime.js"])
    assert archive_exclusion(game, construct).stage == "construct_runtime"
    clean = ArchiveFacts(0, "clean", [], ["index.html", "game.js"])
    assert archive_exclusion(game, clean).kept
    assert archive_exclusion(itch["itch-1017"], clean).stage == "construct_runtime"  # made_with
    assert launch_exclusion(game, {"game": game.id, "status": "ok"}).kept
    failed = launch_exclusion(game, {"game": game.id, "status": "crashed", "error": "segfault"})
    assert (failed.stage, failed.reason) == ("launch", "launch dry-run crashed: segfault")
    blank = {"game": game.id, "status": "ok", "ok": False, "error": "blank frames only"}
    assert launch_exclusion(game, blank).reason == "launch dry-run failed: blank frames only"
    assert launch_exclusion(game, {"game": game.id, "status": "ok", "ok": True}).kept
    with pytest.raises(ValueError, match="unknown status"):
        launch_exclusion(game, {"status": "fine"})
    with pytest.raises(ValueError, match="names game"):
        launch_exclusion(game, {"game": "other", "status": "ok"})


def test_every_stage_has_a_check_or_a_decision_point() -> None:
    groups = {s.group for s in STAGES}
    assert groups == {"metadata", "technical", "archive", "launch"}
    names = [s.name for s in STAGES]
    assert len(names) == len(set(names))
