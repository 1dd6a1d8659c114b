"""A pygame row's entry (issue #16, defect 8): the package's launcher, or a missing file.

The launcher forms are checked on small trees (no game runs); the fixture game
``tests/fixtures/launcher_game`` is then played through its own launcher, and a row whose entry
is missing fails to launch with a message instead of a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from playsuite.actions import Wait
from playsuite.corpus import GameEntry
from playsuite.runtimes.base import GameFailure, RunStatus
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.pygame_entry import EntryError, PygameEntry, resolve_entry
from tests.runtimes.conftest import fixture_game

SHARE = "usr/share/games/foo"


def row(entry: str, *args: str, **options: object) -> GameEntry:
    return GameEntry.from_dict(
        {
            "id": "foo",
            "title": "Foo",
            "source": "debian",
            "package": "foo",
            "runtime": "pygame",
            "entry": entry,
            "args": list(args),
            "options": options,
        }
    )


def tree_with(tmp_path: Path, launcher: str, name: str = "usr/games/foo") -> Path:
    """A game tree (mirroring /) with ``foo.py`` in its data folder and ``launcher``."""
    tree = tmp_path / "files"
    (tree / SHARE / "lib").mkdir(parents=True)
    (tree / SHARE / "foo.py").write_text("print('the game')\n")
    (tree / name).parent.mkdir(parents=True, exist_ok=True)
    (tree / name).write_text(launcher)
    return tree


@pytest.mark.parametrize(
    ("launcher", "expected"),
    [
        (  # funnyboat's form
            '#!/bin/sh\n\ncd /usr/share/games/foo\nexec python3 /usr/share/games/foo/foo.py "$@"\n',
            PygameEntry(f"{SHARE}/foo.py", ("-window",), SHARE),
        ),
        (  # one line, a relative script, the launcher's own flags around the row's
            '#!/bin/sh\ncd /usr/share/games/foo && exec python3 -O foo.py --a "$@" --b\n',
            PygameEntry(f"{SHARE}/foo.py", ("--a", "-window", "--b"), SHARE),
        ),
        (  # env, PYTHONPATH, a full interpreter path, an option with a value, comments
            "#!/bin/bash\nset -e  # strict\nexport PYTHONPATH=/usr/share/games/foo/lib\n"
            'if [ -n "$DISPLAY" ]; then :; fi\n'
            "exec env SDL_AUDIODRIVER=dummy /usr/bin/python3 -W ignore "
            "/usr/share/games/foo/foo.py\n",
            PygameEntry(f"{SHARE}/foo.py", ("-window",), None, (f"{SHARE}/lib",)),
        ),
        (  # the launcher's own folder, found through $0
            '#!/bin/sh\ncd "$(dirname "$0")"/../share/games/foo\nexec python3 ./foo.py "$@"\n',
            PygameEntry(f"{SHARE}/foo.py", ("-window",), SHARE),
        ),
    ],
)
def test_a_shell_launcher_becomes_the_script_it_runs(
    tmp_path: Path, launcher: str, expected: PygameEntry
) -> None:
    tree = tree_with(tmp_path, launcher)
    got = resolve_entry(row("usr/games/foo", "-window"), tree)
    assert got == PygameEntry(**{**expected.__dict__, "launcher": "/usr/games/foo"})


def test_python_launchers_links_nested_launchers_and_row_options(tmp_path: Path) -> None:
    tree = tree_with(tmp_path, "#!/usr/bin/env python3\nprint('a Python launcher')\n")
    assert resolve_entry(row("usr/games/foo"), tree) == PygameEntry("usr/games/foo")
    # an absolute installed path names the same file; a .py entry is run as it is
    assert resolve_entry(row("/usr/games/foo"), tree).entry == "usr/games/foo"
    assert resolve_entry(row(f"{SHARE}/foo.py", "x"), tree) == PygameEntry(
        f"{SHARE}/foo.py", ("x",)
    )
    # a link (absolute: an installed path) is followed inside the tree
    os.symlink("/usr/share/games/foo/foo.py", tree / "usr/games/bar")
    assert resolve_entry(row("usr/games/bar"), tree).entry == f"{SHARE}/foo.py"
    # a launcher that execs another launcher of the game
    (tree / "usr/lib/foo").mkdir(parents=True)
    (tree / "usr/lib/foo/run").write_text(
        '#!/bin/sh\ncd /usr/share/games/foo\nexec python3 foo.py --inner "$@"\n'
    )
    (tree / "usr/games/baz").write_text('#!/bin/sh\nexec /usr/lib/foo/run --outer "$@"\n')
    got = resolve_entry(row("usr/games/baz", "-w", cwd="usr", path=["x"]), tree)
    assert got.entry == f"{SHARE}/foo.py" and got.args == ("--inner", "--outer", "-w")
    assert got.cwd == "usr" and got.path == ("x",)  # row options win
    # module:function entries are the host's business
    assert resolve_entry(row("main:main", cwd="a"), tree) == PygameEntry("main:main", (), "a")


@pytest.mark.parametrize(
    ("entry", "launcher", "message"),
    [
        ("usr/games/nope", "", "entry 'usr/games/nope' is not in the game's files (no "),
        ("usr/games/foo", "#!/bin/sh\nexec python3 -m foo\n", "runs 'python -m ...'"),
        ("usr/games/foo", "#!/bin/sh\nexec python3 $GAMEDIR/foo.py\n", "shell variables"),
        ("usr/games/foo", "#!/bin/sh\nexec python3 foo.py\n", "without a 'cd'"),
        ("usr/games/foo", "#!/bin/sh\nexec /usr/games/foo.bin\n", "no command of it runs"),
        (
            "usr/games/foo",
            "#!/bin/sh\ncd /usr/share/games/foo\nexec python3 gone.py\n",
            "entry 'gone.py (run by /usr/games/foo)' is not in the game's files (no /",
        ),
        ("usr/games/foo", "#!/usr/bin/perl\nexec 'x';\n", "is a 'perl' script"),
        ("usr/games/foo", "\x7fELF\0\0\0", "not a script"),
        (SHARE, "", "is not a file"),
    ],
)
def test_an_entry_that_cannot_run_is_refused_with_a_reason(
    tmp_path: Path, entry: str, launcher: str, message: str
) -> None:
    tree = tree_with(tmp_path, launcher)
    with pytest.raises(EntryError) as info:
        resolve_entry(row(entry), tree)
    assert info.value.status == RunStatus.LAUNCH_FAILED
    assert str(info.value).startswith("foo: ") and message in str(info.value), info.value


def test_a_game_plays_through_its_package_launcher(acquired, run_options) -> None:
    """The launcher cds to the data folder and adds a flag; without both the game dies."""
    game = fixture_game(
        "launcher_game", args=("--size", "200", "100"), entry="usr/games/launcher-game"
    )
    with make_runtime(game, run_options(acquired(game))) as rt:
        first = rt.start()
        assert first.frame.shape == (100, 200, 3)
        assert tuple(first.frame[50, 100]) == (0, 160, 220)  # read from data/colour.txt
        frames = rt.act([Wait()], 0.2)
        assert len(frames) == 6 and np.array_equal(frames[-1], first.frame)


def test_a_missing_entry_fails_to_launch_with_the_game_and_path(acquired, run_options) -> None:
    game = fixture_game("probe_game", entry="no_such_main.py")
    files = acquired(game).files
    rt = make_runtime(game, run_options(acquired(game)))
    with pytest.raises(GameFailure) as info:
        rt.start()
    rt.close()
    assert info.value.status == RunStatus.LAUNCH_FAILED
    message = str(info.value)
    assert message.startswith("probe-game: entry 'no_such_main.py' is not in the game's files")
    assert str(files / "no_such_main.py") in message and "Traceback" not in message
    assert rt.proc is None  # refused before any sandbox started
