"""PyPI as a catalog source: ingest of a name list through cached look-ups, filters with their
reasons, genres from classifiers, the pinned snapshot's round trip and the steps to a corpus
table, on ten real projects' metadata (tests/data/catalog/pypi_sample.json, read through pip's
installation report); entry discovery in an acquired wheel; one slow test launches a real PyPI
game."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from playsuite.catalog.curate import (
    read_decisions,
    registry_candidates,
    step_decide,
    step_genres,
    step_ingest,
    step_screen,
    step_table,
    step_triage,
)
from playsuite.catalog.filters import FilterSettings, screen
from playsuite.catalog.genres import load_taxonomy
from playsuite.catalog.pypi_entry import pypi_entry
from playsuite.catalog.pypi_index import (
    PypiRules,
    fetch_json,
    fetch_metadata,
    look_up,
    prefilter,
    read_names,
    read_pypi,
    requirement_names,
)
from playsuite.corpus import load_corpus

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests/data/catalog/pypi_sample.json"
RULES = ROOT / "config/catalog/pypi.yaml"
GENRES = ROOT / "config/genres.yaml"

EXPECTED = {  # project -> (stage, words of the reason); "" = kept
    "xboing": ("", ""),
    "ten-drops": ("", ""),
    "planetoids-game": ("", ""),
    "pyskool": ("", ""),  # no declared requirements (2013), its summary names pygame
    "space-escape-raksoiv": ("", ""),  # Environment :: Console, but pygame draws a window
    "pacman-chasing-game": ("non_free", "Proprietary"),
    "pygame-animatedgif": ("not_a_game", "Libraries :: pygame"),
    "dynamic-graphs-with-pygame": ("not_a_game", "Libraries :: Python Modules"),
    "nova-2d": ("not_a_game", "'engine'"),
    "fligengine": ("not_a_game", "'engine'"),  # a game topic, but "a 2D game engine"
}
DECIDE_OUTPUTS = (
    "decisions",
    "exclusions",
    "funnel_csv",
    "funnel_md",
    "funnel_tex",
    "technical_csv",
    "technical_md",
    "kept",
)


@pytest.fixture(scope="module")
def rules() -> PypiRules:
    return PypiRules.load(RULES)


@pytest.fixture(scope="module")
def games(rules: PypiRules, tmp_path_factory: pytest.TempPathFactory) -> dict:
    found, _ = read_pypi(SAMPLE, rules, tmp_path_factory.mktemp("cache"), lookups=0)
    return {g.source_id: g for g in found}


def test_the_snapshot_reads_into_records(games: dict) -> None:
    assert set(games) == set(EXPECTED)
    xboing = games["xboing"]
    assert xboing.id == "pypi-xboing" and xboing.source == "pypi" and xboing.version == "0.4.0"
    assert xboing.runtime == "pygame" and xboing.library == ("pygame",)
    assert "Topic :: Games/Entertainment :: Arcade" in xboing.tags
    assert xboing.depends == ("injector", "pygame", "typing-extensions")
    assert games["ten-drops"].library == ("pygame-ce",)
    pyskool = games["pyskool"]  # no requirements: runs natively, its summary is GUI evidence
    assert pyskool.runtime == "native" and pyskool.made_with == ("pygame (summary)",)
    assert not games["pacman-chasing-game"].free and games["xboing"].free


def test_requirements_for_an_extra_only_do_not_count() -> None:
    reqs = ["pygame (>=3.8)", 'pytest>=7; extra == "dev"', "Pillow>=9; python_version<'4'"]
    assert requirement_names(reqs) == ("pygame", "pillow")
    assert requirement_names(None) == ()


def test_filters_give_a_stage_and_reason_per_excluded_project(games: dict) -> None:
    settings = FilterSettings()
    for name, (stage, words) in EXPECTED.items():
        decision = screen(games[name], settings)
        assert decision.stage == stage, (name, decision)
        assert words in decision.reason, (name, decision.reason)


def test_stages_the_sample_does_not_reach(games: dict) -> None:
    """Variants of a kept game, one per remaining stage, each excluded with its evidence."""
    settings = FilterSettings()
    game = games["xboing"]
    variants = {
        "server": replace(game, source_id="xboing-server"),
        "text_mode": replace(
            game, library=(), tags=("Environment :: Console :: Curses",), build="linux"
        ),
        "no_gui": replace(game, library=(), tags=(), build="linux"),
        "network": replace(game, description="An online multiplayer breakout game"),
        "multiplayer_only": replace(game, description="A breakout game, requires two players"),
        "gamepad_required": replace(game, description="A breakout game, gamepad required"),
    }
    for stage, variant in variants.items():
        assert screen(variant, settings).stage == stage, stage
    networked = replace(game, tags=("Topic :: Internet :: WWW/HTTP",))
    assert "Topic :: Internet" in screen(networked, settings).reason
    # the first thing a summary names decides: a game that uses a library stays a game
    demo = "A Pygame implementation of Connect Four against an AI, using the connect4 library"
    assert screen(replace(game, description=demo), settings).kept
    engine = "A lightweight 2D game engine built on top of Pygame, for games"
    assert screen(replace(game, description=engine), settings).stage == "not_a_game"


def test_genres_from_classifiers_and_keywords(games: dict, rules: PypiRules) -> None:
    taxonomy = load_taxonomy(GENRES)
    assert "Action" in games["xboing"].tags  # Topic :: Games/Entertainment :: Arcade
    assert "Shooter" in games["planetoids-game"].tags  # "space shooter game"
    assert "Platformer" in games["pyskool"].tags  # Side-Scrolling/Arcade Games
    genres = {n: taxonomy.classify(g.tags) for n, g in games.items()}
    assert genres["xboing"] == "Action" and genres["ten-drops"] is None
    assert genres["planetoids-game"] == "Shooter"
    board = rules.genres.genre_tags(["Topic :: Games/Entertainment :: Board Games"], "")
    assert taxonomy.classify(board) == "Strategy"
    assert rules.genres.genre_tags([], "Ultimate tic-tac-toe game") == ["Strategy"]


def _report(project: dict) -> dict:
    """pip's installation report with what the excerpt kept (the shape pip writes)."""
    info = dict(project["info"])
    info["classifier"] = info.pop("classifiers")
    info["project_url"] = [f"Homepage, {info['project_url']}"] if info["project_url"] else []
    file = project["files"][0]
    download = {
        "url": f"https://files.example/{file['filename']}",
        "archive_info": {"hashes": {"sha256": file["sha256"]}},
    }
    return {"install": [{"metadata": info, "download_info": download}]}


def test_a_name_list_is_narrowed_looked_up_through_the_cache_and_pinned(
    rules: PypiRules, tmp_path: Path
) -> None:
    """No network: every look-up is answered by the on-disk cache, a missing project too."""
    pinned = json.loads(SAMPLE.read_text())
    cache = tmp_path / "cache"
    cache.mkdir()
    lines = ["name\tsummary"]
    for project in pinned["projects"]:
        name = project["info"]["name"].lower()
        (cache / f"{name}.json").write_text(json.dumps(_report(project)))
        lines.append(f"{name}\t{project['info']['summary']}")
    lines += ["requests\tPython HTTP for Humans.", "gone-game\tA deleted game"]
    lines += [
        "game-stats\tStatistics of sports games"
    ]  # found, but neither pygame nor a game topic
    (cache / "gone-game.missing").write_text("")
    stats = {"name": "game-stats", "version": "1.0", "classifiers": [], "requires_dist": ["numpy"]}
    stats_files = [{"filename": "game_stats-1.0.tar.gz", "sha256": "0" * 64}]
    stats_report = _report({"info": {**stats, "project_url": None}, "files": stats_files})
    (cache / "game-stats.json").write_text(json.dumps(stats_report))
    names = tmp_path / "names.tsv"
    names.write_text("\n".join(lines) + "\n")
    assert len(read_names(names)) == 13
    candidates = prefilter(read_names(names), rules.name_words)
    assert "requests" not in candidates and "gone-game" in candidates
    assert prefilter([("../game", ""), ("Cool_Game", "")], ["game"]) == ["cool-game"]
    assert fetch_metadata("gone-game", cache) is None

    found, snapshot = read_pypi(names, rules, cache, lookups=0)
    counts = snapshot["counts"]
    assert counts["names"] == 13 and counts["candidates"] == counts["looked_up"] == 12
    assert counts["installable"] == 11 and counts["kept"] == len(found) == 10
    assert found[0].source_id == "xboing" and found[0].version == "0.4.0"  # as pinned
    assert "pypi-game-stats" not in {g.id for g in found}
    # at most `lookups` candidates are asked about: the same seeded sample every time
    few, again = (read_pypi(names, rules, cache, lookups=4)[1] for _ in range(2))
    assert few["counts"]["looked_up"] == 4 and few["projects"] == again["projects"]


def test_a_survey_looks_first_through_the_json_api_and_lists_every_candidate_left_out(
    rules: PypiRules, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole-index survey (``first_look``) settles most candidates with PyPI's JSON API and
    asks pip only about possible games; every candidate not kept is listed with why."""
    from playsuite.catalog import pypi_index

    cache = tmp_path / "cache"
    cache.mkdir()
    xboing = next(
        p for p in json.loads(SAMPLE.read_text())["projects"] if p["info"]["name"] == "xboing"
    )
    first = {"version": "1.0", "summary": "", "classifiers": []}
    answers = {  # the JSON API's answers, as cached
        "game-stats": {**first, "name": "game-stats", "requires_dist": ["numpy"]},
        "xboing": {**first, "name": "xboing", "requires_dist": ["pygame>=2"]},
        "old-game": {**first, "name": "old-game", "requires_dist": None},  # pip must tell
    }
    for name, answer in answers.items():
        (cache / f"{name}.pypi-json").write_text(json.dumps(answer))
    (cache / "gone-game.pypi-missing").write_text("HTTP 404\n")
    (cache / "xboing.json").unlink(missing_ok=True)
    asked: list[str] = []

    def pip_report(name: str, cache: Path, **kwargs: object) -> bytes | None:
        asked.append(name)
        return json.dumps(_report(xboing)).encode() if name == "xboing" else None

    monkeypatch.setattr(pypi_index, "fetch_metadata", pip_report)
    names = ["game-stats", "xboing", "old-game", "gone-game"]
    kept, counts, left = look_up(names, cache, rules, first_look=True)
    assert sorted(asked) == ["old-game", "xboing"]  # the JSON API settled the other two
    assert [p["info"]["name"] for p in kept] == ["xboing"] and counts["kept"] == 1
    outcomes = {item["name"]: item["outcome"] for item in left}
    assert outcomes == {
        "game-stats": "not a game",
        "old-game": "not installable",
        "gone-game": "not on PyPI",
    }
    assert fetch_json("game-stats", cache) == answers["game-stats"]  # from the cache, no network


def test_steps_to_a_corpus_table_with_a_pinned_snapshot(tmp_path: Path) -> None:
    """Ingest, screen, triage, decide, genres and table; re-ingesting the written snapshot
    gives the same records and the same snapshot."""
    pypi = {"rules": str(RULES)}
    records, snapshot = tmp_path / "records.jsonl", tmp_path / "snapshot.json"
    step_ingest({}, records, indexes={"pypi": str(SAMPLE)}, snapshot=snapshot, pypi=pypi)
    written = tmp_path / "snapshot.pypi.json"
    entry = json.loads(snapshot.read_text())["sources"]["pypi"]
    assert entry["projects"] == 10 and entry["index"] == str(SAMPLE)
    again = tmp_path / "again"
    again.mkdir()
    step_ingest(
        {},
        again / "records.jsonl",
        indexes={"pypi": str(written)},
        snapshot=again / "snapshot.json",
        pypi=pypi,
    )
    assert (again / "records.jsonl").read_text() == records.read_text()
    assert (again / "snapshot.pypi.json").read_text() == written.read_text()

    step_screen(records, None, None, tmp_path / "screen.tsv")
    ids = registry_candidates(records, tmp_path / "screen.tsv")
    assert len(ids) == 5
    step_triage(records, {}, None, None, tmp_path / "triage.jsonl", packages=ids)
    out = {name: str(tmp_path / name) for name in DECIDE_OUTPUTS}
    step_decide(
        records, tmp_path / "screen.tsv", tmp_path / "triage.jsonl", None, None, None, None, out
    )
    decisions = read_decisions(out["decisions"])
    assert sum(d.kept for d in decisions.values()) == 5  # entries are found by the launch check
    funnel = Path(out["funnel_md"]).read_text()
    assert "| non_free |" in funnel and "pypi excluded" in funnel
    step_genres(out["kept"], GENRES, None, tmp_path / "labels.tsv")
    table = tmp_path / "games.tsv"
    step_table(
        out["kept"], tmp_path / "labels.tsv", GENRES, table, tmp_path / "dist.csv", [], "pypi"
    )
    rows = {row.id: row for row in load_corpus(table)}  # a PyPI row may leave entry empty
    assert rows["pypi-xboing"].genre == "Action" and rows["pypi-xboing"].entry == ""
    assert rows["pypi-ten-drops"].genre is None  # no classifier: left to the LLM classifier
    assert rows["pypi-pyskool"].runtime == "native" and rows["pypi-xboing"].package == "xboing"


def _wheel(files: Path, name: str, version: str, entry_points: str | None, top: str) -> Path:
    site = files / "venv/lib/python3.11/site-packages"
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "top_level.txt").write_text(f"{top}\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)
    (site / top).mkdir()
    (site / top / "__init__.py").write_text("")
    return site / top


def test_the_entry_is_the_wheels_script_named_after_the_project(tmp_path: Path) -> None:
    points = (
        "[console_scripts]\nspace-escape-editor = space_escape.editor:main\n"
        "space-escape = space_escape.main:main\n"
    )
    _wheel(tmp_path, "space-escape-raksoiv", "0.4.0", points, "space_escape")
    # neither script is named after the project (space-escape-raksoiv): ambiguous
    assert pypi_entry(tmp_path, "space-escape-raksoiv", "pygame") == ("", ())
    gui = tmp_path / "gui"
    _wheel(gui, "ten-drops", "1.0.3", "[gui_scripts]\ntendrops = ten_drops.app:run\n", "ten_drops")
    assert pypi_entry(gui, "ten-drops", "pygame") == ("ten_drops.app:run", ())
    entry, args = pypi_entry(gui, "Ten_Drops", "native")
    assert (
        entry == "venv/bin/python"
        and args[0] == "-c"
        and "from ten_drops.app import run" in args[1]
    )
    named = tmp_path / "named"
    _wheel(named, "space-escape", "1", points, "space_escape")
    assert pypi_entry(named, "space-escape", "pygame") == ("space_escape.main:main", ())


def test_without_scripts_the_entry_is_the_packages_main(tmp_path: Path) -> None:
    package = _wheel(tmp_path, "xboing", "0.4.0", None, "xboing")
    assert pypi_entry(tmp_path, "xboing", "pygame") == ("", ())  # nothing to run
    (package / "__main__.py").write_text("print('play')\n")
    main = "venv/lib/python3.11/site-packages/xboing/__main__.py"
    assert pypi_entry(tmp_path, "xboing", "pygame") == (main, ())
    assert pypi_entry(tmp_path, "xboing", "native") == ("venv/bin/python", ("-m", "xboing"))
    assert pypi_entry(tmp_path, "other", "pygame") == ("", ())  # not this game's wheel


def test_old_projects_scripts_in_the_venv(tmp_path: Path) -> None:
    """pyskool (2013) installs four ``scripts=`` into venv/bin and declares no entry point."""
    _wheel(tmp_path, "pyskool", "1.2.1", None, "pyskool")
    info = tmp_path / "venv/lib/python3.11/site-packages/pyskool-1.2.1.dist-info"
    names = ["skool_daze.py", "back_to_skool.py"]
    (info / "RECORD").write_text("".join(f"../../../bin/{n},sha256=x,1\n" for n in names))
    (tmp_path / "venv/bin").mkdir(parents=True)
    for name in names:
        (tmp_path / "venv/bin" / name).write_text("#!/tmp/stage/venv/bin/python\nimport pyskool\n")
    assert pypi_entry(tmp_path, "pyskool", "pygame") == ("", ())  # two games: ambiguous
    (info / "RECORD").write_text("../../../bin/skool_daze.py,sha256=x,1\n")
    assert pypi_entry(tmp_path, "pyskool", "pygame") == ("venv/bin/skool_daze.py", ())
    native = ("venv/bin/python", ("/game/venv/bin/skool_daze.py",))
    assert pypi_entry(tmp_path, "pyskool", "native") == native


@pytest.mark.games
@pytest.mark.slow
def test_a_real_pypi_game_through_the_launch_check(tmp_path: Path, games: dict) -> None:
    """Space Escape (a small pygame game) is acquired with pip, its entry found in its wheel
    (``space_escape.main:main``) and launched in the sandbox (~40 s)."""
    from playsuite.catalog.launch import launch_candidate
    from playsuite.catalog.registry import registry_triage

    game = games["space-escape-raksoiv"]
    try:
        result = launch_candidate(game, game.source_id, registry_triage(game, {}), tmp_path)
    except OSError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"cannot launch here: {exc}")
    if "acquisition failed" in result.get("error", ""):
        pytest.skip(f"PyPI not reachable: {result['error']}")
    assert result["entry"] == "space_escape.main:main"
    assert result["status"] == "ok" and result["ok"] is True, result
