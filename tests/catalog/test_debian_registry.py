"""Debian's index as a catalog source: parser, filters with their reasons, genres, snapshot and
the curation steps to a corpus table, on real stanzas of bookworm's index
(tests/data/catalog/debian_sample.Packages); one slow test launches a real package."""

from __future__ import annotations

import csv
import json
import os
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
from playsuite.catalog.debian_index import GenreTable, game_stanzas, read_debian
from playsuite.catalog.filters import FilterSettings, screen
from playsuite.catalog.genres import load_taxonomy
from playsuite.catalog.launch import debian_entry, entry_path
from playsuite.catalog.launch_survey import failure_reason, summary
from playsuite.corpus import GameEntry, load_corpus
from playsuite.runtimes.pygame_entry import EntryError, resolve_entry

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests/data/catalog/debian_sample.Packages"
DEBTAGS = ROOT / "config/catalog/debtag_genres.yaml"
GENRES = ROOT / "config/genres.yaml"

EXPECTED = {  # package -> (stage, words of the reason); "" = kept
    "ltris": ("", ""),
    "supertux": ("", ""),  # joystick debtag only: supports a pad, plays by keyboard
    "bucklespring": ("not_a_game", "keyboard sound"),  # untagged, links libx11: a sound toy
    "solarwolf": ("", ""),
    "xgalaga": ("", ""),
    "xgalaga++": ("", ""),
    "0ad-data": ("not_a_game", "role::app-data"),
    "asc-music": ("not_a_game", "music package"),  # tagged role::program by mistake
    "bzflag-server": ("server", "bzflag-server"),
    "bastet": ("text_mode", "interface::text-mode"),
    "2048": ("no_gui", "untagged"),
    "armagetronad": ("network", "network::client"),
    "kildclient": ("multiplayer_only", "game::mud"),
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
def games() -> dict[str, object]:
    found, _ = read_debian(str(SAMPLE), GenreTable.load(DEBTAGS))
    return {g.source_id: g for g in found}


def test_parser_reads_every_stanza_into_a_record(games: dict) -> None:
    assert set(games) == set(EXPECTED)
    ltris = games["ltris"]
    assert (ltris.id, ltris.source, ltris.version) == ("debian-ltris", "debian", "1.0.19-3+b1")
    assert ltris.runtime == "native" and ltris.start == "/usr/games/ltris"
    assert "interface::x11" in ltris.tags and "libsdl1.2debian" in ltris.depends
    assert ltris.description == "very polished Tetris clone with CPU opponents"
    assert games["solarwolf"].runtime == "pygame" and games["solarwolf"].library == ("pygame",)
    assert games["xgalaga++"].id == "debian-xgalagaplusplus" != games["xgalaga"].id


def test_parser_keeps_the_highest_version_and_this_architecture() -> None:
    text = SAMPLE.read_text()
    ltris = text.split("\n\n")[0]
    older = ltris.replace("Version: 1.0.19-3+b1", "Version: 1.0.19-3")
    i386 = ltris.replace("Package: ltris", "Package: ltris32").replace(
        "Architecture: amd64", "Architecture: i386"
    )
    tool = "Package: gimp\nVersion: 2.10\nArchitecture: amd64\nSection: graphics\n"
    chosen = game_stanzas("\n\n".join([older, ltris, i386, tool]) + "\n")
    assert [(f["Package"], f["Version"]) for f in chosen] == [("ltris", "1.0.19-3+b1")]
    tagged = tool + "Tag: game::toys, interface::x11\n"  # a game by its debtag, any section
    assert [f["Package"] for f in game_stanzas(tagged)] == ["gimp"]


def test_filters_give_a_stage_and_reason_per_excluded_package(games: dict) -> None:
    settings = FilterSettings()
    for name, (stage, words) in EXPECTED.items():
        decision = screen(games[name], settings)
        assert decision.stage == stage, (name, decision)
        assert words in decision.reason, (name, decision)


def test_non_free_and_contrib_sections_are_excluded(games: dict) -> None:
    for section in ("contrib/games", "non-free/games"):
        decision = screen(replace(games["ltris"], section=section), FilterSettings())
        assert (decision.stage, decision.reason) == (
            "non_free",
            f"not in Debian main (section {section})",
        )


def test_genres_from_debtags_and_keywords(games: dict) -> None:
    taxonomy = load_taxonomy(GENRES)
    assert taxonomy.classify(games["ltris"].tags) == "Puzzle"  # game::tetris
    assert taxonomy.classify(games["supertux"].tags) == "Action"  # arcade + platform
    assert taxonomy.classify(games["bucklespring"].tags) is None  # untagged: the classifier's
    table = GenreTable.load(DEBTAGS)
    assert table.genre_tags(["game::sport:racing"], "") == ["Racing"]
    assert table.genre_tags([], "3D kart racing game") == ["Racing"]
    assert table.genre_tags([], "a trace of embraced races") == []  # whole words only
    every = set(table.debtags.values()) | set(table.keywords)
    assert every <= {t for g in taxonomy.genres for t in g.tags}  # only tags the rule knows


def test_steps_to_a_corpus_table_with_a_pinned_snapshot(tmp_path: Path) -> None:
    w = tmp_path
    step_ingest({}, w / "records.jsonl", {"debian": str(SAMPLE)}, str(DEBTAGS), w / "snap.json")
    snapshot = json.loads((w / "snap.json").read_text())["sources"]["debian"]
    assert snapshot["packages"] == len(EXPECTED) and len(snapshot["excerpt_sha256"]) == 64
    again = w / "again"
    step_ingest(
        {}, again / "records.jsonl", {"debian": snapshot["excerpt"]}, str(DEBTAGS), again / "s.json"
    )
    assert (again / "records.jsonl").read_text() == (w / "records.jsonl").read_text()

    step_screen(w / "records.jsonl", None, None, w / "screen.tsv")
    ids = registry_candidates(w / "records.jsonl", w / "screen.tsv")
    assert len(ids) == sum(1 for stage, _ in EXPECTED.values() if not stage)
    step_triage(w / "records.jsonl", {}, None, None, w / "triage.jsonl", packages=ids)
    out = {k: str(w / f"{k}.out") for k in DECIDE_OUTPUTS}
    step_decide(
        w / "records.jsonl", w / "screen.tsv", w / "triage.jsonl", None, None, None, None, out
    )
    step_genres(out["kept"], GENRES, None, w / "labels.tsv")
    step_table(out["kept"], w / "labels.tsv", GENRES, w / "games.tsv", w / "dist.csv", [], "debian")

    rows = {r.package: r for r in load_corpus(w / "games.tsv")}
    assert set(rows) == {n for n, (stage, _) in EXPECTED.items() if not stage}
    ltris = rows["ltris"]
    assert (ltris.source, ltris.runtime, ltris.entry, ltris.version, ltris.genre) == (
        "debian",
        "native",
        "/usr/games/ltris",
        "1.0.19-3+b1",
        "Puzzle",
    )
    assert rows["solarwolf"].runtime == "pygame"
    funnel = list(csv.DictReader(Path(out["funnel_csv"]).read_text().splitlines()))
    stages = [r["stage"] for r in funnel]
    assert "server" in stages and "drag_only" not in stages  # only stages of the sources present
    assert funnel[-1]["total remaining"] == str(len(rows))
    decisions = read_decisions(out["decisions"])
    assert decisions["debian-bzflag-server"].stage == "server"


def test_debian_entry_is_the_package_launcher_or_the_only_one(tmp_path: Path) -> None:
    games = tmp_path / "usr/games"
    games.mkdir(parents=True)
    for name in ("xgalaga++", "helper"):
        (games / name).write_text("#!/bin/sh\n")
        os.chmod(games / name, 0o755)
    assert debian_entry(tmp_path, "xgalaga++") == "/usr/games/xgalaga++"
    assert debian_entry(tmp_path, "other") == ""  # two launchers, neither named for it
    (games / "helper").chmod(0o644)
    assert debian_entry(tmp_path, "other") == "/usr/games/xgalaga++"
    assert entry_path(tmp_path, "/usr/games/x --window") == tmp_path / "usr/games/x"


def test_an_ambiguous_debian_entry_is_the_one_its_menu_entry_starts(tmp_path: Path) -> None:
    """Wesnoth's package has three launchers; its desktop file runs one through ``sh -c``."""
    games = tmp_path / "usr/games"
    games.mkdir(parents=True)
    for name in ("wesnoth-1.16", "wesnoth-1.16-smallgui", "wesnoth-1.16_editor"):
        (games / name).write_text("#!/bin/sh\n")
        os.chmod(games / name, 0o755)
    menu = tmp_path / "usr/share/applications"
    menu.mkdir(parents=True)
    (menu / "org.wesnoth.Wesnoth-1.16.desktop").write_text(
        '[Desktop Entry]\nName=Wesnoth\nExec=sh -c "wesnoth-1.16 >/dev/null 2>&1"\n'
    )
    assert debian_entry(tmp_path, "wesnoth-1-16-core") == "/usr/games/wesnoth-1.16"
    (menu / "editor.desktop").write_text("[Desktop Entry]\nExec=env A=1 wesnoth-1.16_editor\n")
    assert debian_entry(tmp_path, "wesnoth-1-16-core") == ""  # two menu entries: ambiguous


def test_survey_summary_counts_per_runtime_and_reason() -> None:
    results = [
        {"game": "a", "runtime": "native", "status": "ok", "ok": True},
        {"game": "b", "runtime": "native", "status": "ok", "ok": False, "error": "blank frames"},
        {"game": "c", "runtime": "pygame", "status": "launch_failed", "error": "code 134 at /x/y"},
        {"game": "d", "runtime": "pygame", "status": "launch_failed", "error": "code 1 at /z"},
    ]
    assert failure_reason(results[2]) == failure_reason(results[3]) == "launch_failed: code N at /…"
    text = summary(results)
    assert "native           2      1" in text and "pygame           2      0" in text
    assert "all              4      1" in text
    assert "    2  launch_failed: code N at /…" in text and "    1  ok: blank frames" in text


@pytest.mark.games
@pytest.mark.slow
def test_a_real_package_through_the_stages_and_the_launch_check(tmp_path: Path) -> None:
    """LTris from Debian's real index: ingest, screen, triage, the launch dry-run in the sandbox
    (acquisition of the package and its SDL 1.2 closure), then the table gated on it."""
    from playsuite.catalog.launch import step_launch

    w = tmp_path
    ltris = SAMPLE.read_text().split("\n\n")[0]
    (w / "index.Packages").write_text(ltris + "\n")
    step_ingest(
        {}, w / "records.jsonl", {"debian": str(w / "index.Packages")}, str(DEBTAGS), w / "s.json"
    )
    step_screen(w / "records.jsonl", None, None, w / "screen.tsv")
    ids = registry_candidates(w / "records.jsonl", w / "screen.tsv")
    step_triage(w / "records.jsonl", {}, None, None, w / "triage.jsonl", packages=ids)
    result = step_launch(
        w / "records.jsonl",
        w / "triage.jsonl",
        "debian-ltris",
        "ltris",
        w / "launch/l.json",
        games_dir=w / "games",
    )
    assert result["ok"] is True and result["status"] == "ok", result
    assert result["entry"] == "/usr/games/ltris"
    # The game's own tree is gone; its closure stays in the store the corpus's launch jobs share.
    assert not (w / "games/debian-ltris").exists()
    assert any(p.name.startswith("libsdl1.2") for p in (w / "games/.debian").iterdir())
    out = {k: str(w / f"{k}.out") for k in DECIDE_OUTPUTS}
    launch = {"debian-ltris": str(w / "launch/l.json")}
    step_decide(
        w / "records.jsonl", w / "screen.tsv", w / "triage.jsonl", launch, None, None, None, out
    )
    step_genres(out["kept"], GENRES, None, w / "labels.tsv")
    step_table(out["kept"], w / "labels.tsv", GENRES, w / "games.tsv", w / "dist.csv", [], "d")
    (row,) = load_corpus(w / "games.tsv")
    assert (row.id, row.package, row.entry, row.genre) == (
        "debian-ltris",
        "ltris",
        "/usr/games/ltris",
        "Puzzle",
    )


LAUNCHERS = {  # bookworm's own launchers (first lines), and the script each runs
    "#! /usr/bin/python3\nimport sys, os\n": "/usr/games/game",
    '#!/bin/sh\nset -e\n\ncd /usr/share/games/wwiu/\nexec python3 run_game.py "$@"\n': (
        "/usr/share/games/wwiu/run_game.py"
    ),
    "#!/bin/bash\n\ncd /usr/share/games/ard\n/usr/bin/python3 /usr/share/games/ard/a.py\n": (
        "/usr/share/games/ard/a.py"
    ),
    "#!/bin/bash\ncd /usr/share/games/ard\nexec ./a.py $options\n": "/usr/share/games/ard/a.py",
}


def pygame_row(entry: str) -> GameEntry:
    return GameEntry.from_dict(
        {
            "id": "g",
            "title": "G",
            "source": "debian",
            "package": "g",
            "runtime": "pygame",
            "entry": entry,
        }
    )


@pytest.mark.parametrize("text", list(LAUNCHERS))
def test_the_runtime_follows_a_debian_pygame_launcher(tmp_path: Path, text: str) -> None:
    """The catalog keeps the package's launcher as the row's entry; the pygame runtime's own
    resolver (the one the catalog's launch check uses) finds the script it runs."""
    for script in ("usr/share/games/wwiu/run_game.py", "usr/share/games/ard/a.py"):
        (tmp_path / script).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / script).write_text("#!/usr/bin/python3\nimport pygame\n")
    (tmp_path / "usr/games").mkdir(parents=True)
    (tmp_path / "usr/games/game").write_text(text)
    found = resolve_entry(pygame_row("/usr/games/game"), tmp_path)
    assert "/" + found.entry.lstrip("/") == LAUNCHERS[text]


def test_a_launcher_without_python_is_refused_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "usr/games").mkdir(parents=True)
    (tmp_path / "usr/games/game").write_text("#!/bin/sh\necho no python here\n")
    with pytest.raises(EntryError, match="game"):
        resolve_entry(pygame_row("/usr/games/game"), tmp_path)


def test_workflow_inputs_of_a_registry_corpus() -> None:
    """A live index is a parameter, not an input file; a pinned excerpt is both."""
    from types import SimpleNamespace

    from playsuite.planning.catalog import CatalogInputs

    config = {"catalog": {"corpora": {"live": {"debian": "apt"}, "pinned": {"debian": "x.P"}}}}
    inputs = CatalogInputs(config, checkpoints=None, storage=None)
    live, pinned = SimpleNamespace(corpus="live"), SimpleNamespace(corpus="pinned")
    assert inputs.dumps(live) == {} and inputs.indexes(live) == {"debian": "apt"}
    assert inputs.dumps(pinned) == {"debian": "x.P"} == inputs.indexes(pinned)


def test_the_runtime_follows_a_symlinked_launcher(tmp_path: Path) -> None:
    """angrydd's /usr/games/angrydd links to its script; the script's folder has its modules."""
    script = tmp_path / "usr/share/games/dd/dd.py"
    script.parent.mkdir(parents=True)
    script.write_text("#! /usr/bin/python3\nimport constants\n")
    (tmp_path / "usr/games").mkdir()
    (tmp_path / "usr/games/dd").symlink_to("../share/games/dd/dd.py")
    found = resolve_entry(pygame_row("/usr/games/dd"), tmp_path)
    assert found.entry.lstrip("/") == "usr/share/games/dd/dd.py"


def test_opengl_option_from_the_dependencies(games: dict) -> None:
    from playsuite.catalog.debian_index import runtime_options

    solarwolf = games["solarwolf"]
    assert runtime_options(solarwolf) == {}
    gl = replace(solarwolf, depends=(*solarwolf.depends, "python3-opengl"))
    assert runtime_options(gl) == {"opengl": True}
    assert runtime_options(replace(gl, build="linux")) == {}  # native games open their own
