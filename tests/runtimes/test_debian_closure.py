"""A Debian game is its packages plus its dependency closure, run at the paths it was built for.

The resolution rules are checked on a hand-written index (a test double of apt's answers); the
whole path (apt's real index, the shared store, the overlay of ``/usr`` in bubblewrap, the
package's own launcher) on LTris, an SDL 1.2 game whose libraries this host does not install.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pytest

from playsuite.actions.canonical import Hold
from playsuite.corpus import GameEntry
from playsuite.runtimes.acquire import acquire, installed_layers
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.fetchers.apt_index import AptIndex, depends, source_of
from playsuite.runtimes.fetchers.debian_closure import Pin, resolve
from playsuite.sandbox import SandboxedProcess
from playsuite.sandbox.bwrap import _lowerdir
from playsuite.sandbox.policy import SandboxPolicy


def stanza(name: str, version: str, depends: str = "", source: str = "") -> dict[str, str]:
    fields = {"Package": name, "Version": version, "Depends": depends}
    if source:
        fields["Source"] = source
    return fields


@dataclass
class ScriptedAptIndex(AptIndex):
    """apt's answers written by hand: ``packages`` is the index, ``host`` what is installed."""

    packages: list[dict[str, str]] = field(default_factory=list)
    host: dict[str, str] = field(default_factory=dict)
    provides: dict[str, list[str]] = field(default_factory=dict)

    def prefetch(self, specs: list[str]) -> None:
        pass

    def show(self, name: str, version: str | None = None) -> dict[str, str] | None:
        for fields in self.packages:
            if fields["Package"] == name and version in (None, fields["Version"]):
                return fields
        return None

    def providers(self, name: str) -> list[str]:
        return self.provides.get(name, [])

    def satisfied_by_host(self, alternative: tuple[str, str | None]) -> str | None:
        return self.host.get(alternative[0])


def test_a_binnmu_game_takes_its_data_packages_and_their_same_source_dependencies() -> None:
    # game 1.0-3+b1 (a rebuild) -> game-data (= 1.0-3) -> game-common (= 1.0-3): all its own.
    index = ScriptedAptIndex(
        packages=[
            stanza("game", "1.0-3+b1", "game-data (= 1.0-3), libc6", "game (1.0-3)"),
            stanza("game-data", "1.0-3", "game-common (= 1.0-3)", "game"),
            stanza("game-common", "1.0-3", "", "game"),
        ],
        host={"libc6": "2.36-9"},
    )
    closure = resolve(index.show("game") or {}, index)
    assert closure.own == [
        Pin("game", "1.0-3+b1"),
        Pin("game-data", "1.0-3"),
        Pin("game-common", "1.0-3"),
    ]
    assert closure.fetched == [] and closure.host == {"libc6": "2.36-9"}


def test_what_the_host_lacks_is_fetched_with_its_own_dependencies() -> None:
    index = ScriptedAptIndex(
        packages=[
            stanza("game", "2", "libsdl1.2debian (>= 1.2.11), perl-tk | tk-perl, libc6"),
            stanza("libsdl1.2debian", "1.2.15", "libcaca0, libc6"),
            stanza("libcaca0", "0.99"),
            stanza("perl-tk", "804", "perl (>= 5.36)"),
        ],
        host={"libc6": "2.36", "perl": "5.36"},
    )
    closure = resolve(index.show("game") or {}, index)
    assert [p.name for p in closure.fetched] == ["libsdl1.2debian", "perl-tk", "libcaca0"]
    assert closure.host == {"libc6": "2.36", "perl": "5.36"}
    assert closure.unresolved == []


def test_a_virtual_dependency_takes_a_provider_and_the_unsatisfiable_is_recorded() -> None:
    index = ScriptedAptIndex(
        packages=[
            stanza("game", "1", "ttf-font, libgone1 (>= 3) | libgone2"),
            stanza("fonts-free", "1"),
            stanza("libgone1", "2"),  # too old for the constraint
        ],
        provides={"ttf-font": ["fonts-free"]},
    )
    closure = resolve(index.show("game") or {}, index)
    assert [p.name for p in closure.fetched] == ["fonts-free"]
    assert closure.unresolved == ["libgone1 (>= 3) | libgone2"]


def test_control_field_helpers() -> None:
    assert source_of({"Package": "x", "Version": "1-2+b1", "Source": "xs (1-2)"}) == ("xs", "1-2")
    assert source_of({"Package": "x", "Version": "1-2"}) == ("x", "1-2")
    assert depends("a (>= 1) | b:any, c (= 2)") == [[("a", ">= 1"), ("b", None)], [("c", "= 2")]]
    assert _lowerdir([Path("/r/a:b,c")]) == "/r/a\\:b\\,c:/usr"


def test_layers_sit_over_the_hosts_usr_inside_the_sandbox(tmp_path: Path) -> None:
    layer = tmp_path / "files" / "usr"
    (layer / "share/games/toy").mkdir(parents=True)
    (layer / "share/games/toy/level.txt").write_text("level 1\n")
    policy = SandboxPolicy(scratch=tmp_path / "scratch", usr_layers=(layer,))
    policy.prepare_scratch()
    script = "cat /usr/share/games/toy/level.txt; /usr/bin/python3 -c 'print(2)'; id -u"
    proc = SandboxedProcess(policy, ["/bin/sh", "-c", script], stdin=subprocess.DEVNULL)
    out, _ = proc.popen.communicate(timeout=30)
    assert out.decode().split() == ["level", "1", "2", "1000"]
    assert not any(tmp_path.glob("scratch/.sandbox/usr/*")), "the overlay leaked to the host"


LTRIS = GameEntry.from_dict(
    {
        "id": "ltris",
        "title": "LTris",
        "source": "debian",
        "package": "ltris",
        "runtime": "native",
        "entry": "/usr/games/ltris",
        "screen": "640x480",
    }
)


@pytest.mark.games
@pytest.mark.slow
def test_a_native_game_runs_its_own_launcher_with_libraries_the_host_lacks(
    tmp_path: Path,
) -> None:
    if AptIndex().installed("libsdl1.2debian"):
        pytest.skip("this host has SDL 1.2 installed: nothing would be fetched")
    games = tmp_path / "games"
    with open(tmp_path / "acquire.log", "w") as log:
        first = acquire(LTRIS, games, log=log)
    fetched = {p["name"] for p in first.manifest["dependencies"]}
    assert {"libsdl1.2debian", "libsdl-mixer1.2"} <= fetched
    assert "libc6" in first.manifest["host_packages"]
    assert first.manifest["unresolved_dependencies"] == []
    assert installed_layers(first.files) == (first.files / "usr", first.root / "deps/usr")

    # A second game needing the same packages reuses the store: no download, the same inodes.
    twin = replace(LTRIS, id="ltris-twin")
    with open(tmp_path / "twin.log", "w") as log:
        second = acquire(twin, games, log=log)
    twin_log = (tmp_path / "twin.log").read_text()
    assert twin_log.count("apt-get download") == 1, twin_log  # its own package only
    lib = "deps/usr/lib/x86_64-linux-gnu/libSDL-1.2.so.0"
    assert os.stat(first.root / lib).st_ino == os.stat(second.root / lib).st_ino

    # The package's own launcher, at its installed path, with its data compiled in as
    # /usr/share/games/ltris: it starts, shows its menu and reacts to a key.
    run = tmp_path / "run"
    run.mkdir()
    with make_runtime(LTRIS, RuntimeOptions(workdir=run, game_dir=first.files)) as game:
        before = game.start().frame
        assert (before > 16).mean() > 0.05, "blank first frame"
        # Down moves the menu's cursor (held a while: on a loaded machine the game may poll its
        # input only a few times a second and miss a short tap).
        frames = game.act([Hold(keys=("down",), seconds=0.3)], 1.5)
        assert any(np.any(frame != before) for frame in frames), "no reaction to Down"
