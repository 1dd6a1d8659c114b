"""The GSettings trigger acquisition runs itself (playsuite.runtimes.fetchers.debian_triggers):
a game's schemas are compiled with its dependencies' and the host's into the game's own tree."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from playsuite.runtimes.fetchers.debian_triggers import COMPILED, SCHEMAS, compile_gsettings_schemas

SCHEMA = """<schemalist>
  <schema id="{id}" path="/{path}/">
    <key name="level" type="i"><default>1</default></key>
  </schema>
</schemalist>
"""


def tree(root: Path, schema_id: str) -> Path:
    folder = root / SCHEMAS
    folder.mkdir(parents=True)
    path = schema_id.lower().replace(".", "/")
    (folder / f"{schema_id}.gschema.xml").write_text(SCHEMA.format(id=schema_id, path=path))
    return root


@pytest.mark.skipif(not shutil.which("glib-compile-schemas"), reason="no glib-compile-schemas")
def test_schemas_of_game_dependencies_and_host_are_compiled_into_the_game(tmp_path: Path) -> None:
    host = tree(tmp_path / "host", "org.host.Desktop")
    deps = tree(tmp_path / "deps", "org.lib.Widgets")
    files = tree(tmp_path / "files", "org.gnome.Klotski")
    assert compile_gsettings_schemas(files, [deps], None, host_root=host) == [
        "glib-compile-schemas"
    ]
    compiled = (files / SCHEMAS / COMPILED).read_bytes()
    for schema_id in (b"org.host.Desktop", b"org.lib.Widgets", b"org.gnome.Klotski"):
        assert schema_id in compiled
    assert not (host / SCHEMAS / COMPILED).exists()  # the host's own file is never touched


def test_a_game_without_schemas_runs_no_trigger(tmp_path: Path) -> None:
    files = tmp_path / "files"
    (files / "usr/games").mkdir(parents=True)
    assert compile_gsettings_schemas(files, [], None, host_root=tmp_path) == []
    assert not (files / SCHEMAS).exists()
