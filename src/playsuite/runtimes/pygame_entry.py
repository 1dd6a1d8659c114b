"""What a pygame row's ``entry`` runs: a script, a function, or what the game's launcher runs.

A row written from a Debian package alone names the package's own launcher, e.g.
``usr/games/funnyboat``, a shell script that changes to the game's data folder and execs Python
on the game's script::

    #!/bin/sh
    cd /usr/share/games/funnyboat
    exec python3 /usr/share/games/funnyboat/main.py "$@"

The pygame host can only run Python in its own process, so the harness follows such a launcher
to the script it runs (and the folder it runs it in) before the game starts. Paths in a launcher
are installed paths; the acquired tree mirrors ``/`` (``files/usr/games/foo`` is
``/usr/games/foo``), so each is looked up in the tree. What is understood: ``cd DIR`` (also
``cd "$(dirname "$0")"``), ``exec``, ``env``, variable assignments (``PYTHONPATH`` is kept as
extra ``sys.path`` entries), interpreter options, commands joined by ``&&``/``;``, the launcher's
own arguments around ``"$@"`` (where the row's ``args`` go; after the launcher's own when it has
no ``"$@"``), and a launcher that execs another launcher or a Python script of the tree. Anything
else (a module run with ``-m``, a path built from shell variables, a compiled program) is refused
with a message that says why and what to write in the row instead.

A missing entry is refused the same way, before the sandbox starts: the episode records
``launch_failed`` with the game and the path, not a traceback from inside the game's process.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from playsuite.corpus import GameEntry
from playsuite.runtimes.base import GameFailure, RunStatus

#: Bytes read to tell a Python script from a shell launcher.
HEAD_BYTES = 4096
#: Launchers followed in a row before giving up (a launcher that runs itself).
MAX_DEPTH = 4
_PYTHON = re.compile(r"^(python|pypy)[0-9.]*$")
_SHELLS = ("sh", "bash", "dash")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_LONE_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_OWN_DIR = re.compile(r"""\$\(\s*dirname\s+["']?\$0["']?\s*\)|`\s*dirname\s+["']?\$0["']?\s*`""")
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")"})
#: Words that start a shell command without being its program.
_KEYWORDS = frozenset({"then", "else", "do", "!", "{", "time"})
#: Python options whose value is the next word.
_OPTIONS_WITH_VALUE = frozenset({"-W", "-X", "-Q"})


class EntryError(GameFailure):
    """The row's entry cannot be run: the game fails to launch, with this message."""

    def __init__(self, message: str) -> None:
        super().__init__(RunStatus.LAUNCH_FAILED, message)


@dataclass(frozen=True)
class PygameEntry:
    """What the pygame host runs: ``entry`` (``module:function``, or a script's path relative
    to the game tree) with ``args``, in ``cwd`` (relative to the tree; ``None``: the script's
    folder), with ``path`` (tree-relative folders) put on ``sys.path``. ``launcher``: the
    launcher it was read from, if any."""

    entry: str
    args: tuple[str, ...] = ()
    cwd: str | None = None
    path: tuple[str, ...] = ()
    launcher: str | None = None


def is_module_entry(entry: str) -> bool:
    """``module:function`` (the host's own test, kept in step with it)."""
    return ":" in entry and not entry.endswith(".py")


def resolve_entry(game: GameEntry, game_dir: Path) -> PygameEntry:
    """What ``game``'s entry runs, checked against its acquired tree ``game_dir``.

    Raises :class:`EntryError` (``launch_failed``) when the entry is missing or cannot be run.
    Row options win over what a launcher says: ``cwd`` replaces the launcher's folder and
    ``path`` comes before its ``PYTHONPATH``.
    """
    options = game.options
    row_path = tuple(options.get("path") or ())
    if is_module_entry(game.entry):
        return PygameEntry(game.entry, tuple(game.args), options.get("cwd"), row_path)
    tree = Path(game_dir).absolute()
    found = _follow(game.id, tree, _in_tree(tree, game.entry), game.entry, tuple(game.args), 0)
    return PygameEntry(
        entry=found.entry,
        args=found.args,
        cwd=options.get("cwd") or found.cwd,
        path=row_path + found.path,
        launcher=found.launcher,
    )


def _in_tree(tree: Path, installed: str, base: str | None = None) -> Path:
    """The tree's file for ``installed`` (absolute: an installed path; relative: from
    ``base``, an installed folder), normalised but with links not yet followed."""
    joined = PurePosixPath(base or "/", installed) if not installed.startswith("/") else None
    path = str(joined) if joined is not None else installed
    return tree / os.path.normpath("/" + path.lstrip("/")).lstrip("/")


def _installed(tree: Path, path: Path) -> str:
    return "/" + path.relative_to(tree).as_posix()


def _resolve_links(game_id: str, tree: Path, path: Path, named: str) -> Path:
    """``path`` with every link followed inside the tree (an absolute target is an installed
    path); :class:`EntryError` when it is missing or leads out of the tree."""
    for _ in range(40):
        if not path.is_symlink():
            break
        target = os.readlink(path)
        if target.startswith("/"):
            path = _in_tree(tree, target)
        else:
            path = Path(os.path.normpath(path.parent / target))
    if not path.is_relative_to(tree):
        raise EntryError(f"{game_id}: entry {named!r} leads out of the game's files ({path})")
    if not path.exists():
        raise EntryError(f"{game_id}: entry {named!r} is not in the game's files (no {path})")
    if not path.is_file():
        raise EntryError(f"{game_id}: entry {named!r} is not a file ({path})")
    return path


def _follow(
    game_id: str, tree: Path, path: Path, named: str, args: tuple[str, ...], depth: int
) -> PygameEntry:
    """The Python script behind ``path``: itself, or what the launcher at ``path`` runs."""
    path = _resolve_links(game_id, tree, path, named)
    relative = path.relative_to(tree).as_posix()
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES)
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    program = _shebang_program(first)
    if path.suffix == ".py" or (program is not None and _PYTHON.match(program)):
        return PygameEntry(relative, args)
    if b"\0" in head or (program is not None and program not in _SHELLS):
        what = f"a {program!r} script" if program else "not a script (a compiled program?)"
        raise EntryError(
            f"{game_id}: entry {named!r} is {what}; a pygame entry must be the game's Python "
            "script, its shell launcher or module:function (runtime: native runs programs)"
        )
    if depth >= MAX_DEPTH:
        raise EntryError(f"{game_id}: launchers nested deeper than {MAX_DEPTH} at {named!r}")
    text = path.read_text(encoding="utf-8", errors="replace")
    return _follow_launcher(game_id, tree, path, text, args, depth)


def _shebang_program(line: str) -> str | None:
    """The program a ``#!`` line runs (``env``'s argument for ``#!/usr/bin/env python3``)."""
    if not line.startswith("#!"):
        return None
    words = line[2:].split()
    if not words:
        return None
    name = PurePosixPath(words[0]).name
    if name == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        return rest[0] if rest else None
    return name


def _commands(text: str, own_dir: str) -> list[list[str]]:
    """The launcher's simple commands, as words (comments, quotes and operators handled)."""
    text = _OWN_DIR.sub(lambda _: own_dir, text.replace("\\\n", " "))
    commands: list[list[str]] = []
    for line in text.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:  # an unbalanced quote: not a line we can read
            continue
        current: list[str] = []
        for word in [*words, ";"]:
            if word in _SEPARATORS:
                if current:
                    commands.append(current)
                current = []
            else:
                current.append(word)
    return commands


def _follow_launcher(
    game_id: str, tree: Path, path: Path, text: str, args: tuple[str, ...], depth: int
) -> PygameEntry:
    """The Python script the shell launcher at ``path`` runs (see the module's docstring)."""
    named = _installed(tree, path)
    own_dir = str(PurePosixPath(named).parent)
    cwd: str | None = None
    python_path: list[str] = []

    def refuse(why: str) -> EntryError:
        return EntryError(
            f"{game_id}: cannot follow the launcher {named}: {why}; set the row's entry to the "
            "game's Python script (with options.cwd where it must run)"
        )

    assigned: dict[str, str] = {}  # the launcher's own variables with a literal value

    def variables(words: list[str]) -> None:
        for word in words:
            if "$" in word and word not in ("$@", "$*"):
                raise refuse(f"{word!r} depends on shell variables")

    def expanded(words: list[str]) -> list[str]:
        """A lone ``$name`` / ``${name}`` word as the shell expands it: the launcher's literal
        value, or nothing when the launcher never sets it (``exec ./x.py $options``)."""
        out: list[str] = []
        for word in words:
            lone = _LONE_VARIABLE.fullmatch(word)
            if lone is None:
                out.append(word)
            elif lone.group(1) in assigned:
                out += assigned[lone.group(1)].split()
        return out

    for words in _commands(text, own_dir):
        while words and words[0] in _KEYWORDS:
            words = words[1:]
        if words and words[0] == "export":
            words = words[1:]
        if len(words) == 1 and _ASSIGNMENT.match(words[0]):  # name=value on its own line
            name, _, value = words[0].partition("=")
            if "$" not in value:
                assigned[name] = value
        words = expanded(words)
        while words and (_ASSIGNMENT.match(words[0]) or words[0] in ("exec", "env", "command")):
            name, _, value = words[0].partition("=")
            if name == "PYTHONPATH" and value:
                variables([value])
                python_path += [p for p in value.split(":") if p]
            words = words[1:]
            while words and words[0].startswith("-") and name in ("exec", "env", "command"):
                words = words[1:]
        if not words:
            continue
        program = PurePosixPath(words[0]).name
        if program == "cd":
            target = words[1] if len(words) > 1 else ""
            variables([target])
            if not target or target.startswith("~"):
                raise refuse(f"'cd {target}' goes to the user's home")
            if cwd is None and not target.startswith("/"):
                raise refuse(f"'cd {target}' depends on where the launcher is started from")
            cwd = os.path.normpath(PurePosixPath(cwd or "/", target))
            continue
        if _PYTHON.match(program):
            variables(words[1:])
            found = _python_command(game_id, tree, words[1:], cwd, args, refuse, named)
            return _merged(found, cwd, python_path, tree, named)
        if words[0].startswith(("/", "./", "../")):  # another launcher or script of the game
            variables(words)
            inner = _in_tree(tree, words[0], cwd)
            if inner.exists():
                extra = _with_args(words[1:], args)
                found = _follow(game_id, tree, inner, _installed(tree, inner), extra, depth + 1)
                return _merged(found, cwd, python_path, tree, named)
    raise refuse("no command of it runs Python (python3 SCRIPT)")


def _python_command(
    game_id: str,
    tree: Path,
    words: list[str],
    cwd: str | None,
    args: tuple[str, ...],
    refuse: Callable[[str], EntryError],
    launcher: str,
) -> PygameEntry:
    """``python3 [options] SCRIPT [args]`` of ``launcher``: the script (Python whatever its
    name or first line) and its arguments."""
    index = 0
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        if option.startswith(("-m", "-c")):
            raise refuse(
                f"it runs 'python {option} ...', not a script (a row can name a "
                "module:function entry instead)"
            )
        index += 2 if option in _OPTIONS_WITH_VALUE else 1
    if index >= len(words):
        raise refuse("its python command names no script")
    script = words[index]
    if not script.startswith("/") and cwd is None:
        raise refuse(f"it runs the relative script {script!r} without a 'cd' before it")
    named = f"{script} (run by {launcher})"
    path = _resolve_links(game_id, tree, _in_tree(tree, script, cwd), named)
    relative = path.relative_to(tree).as_posix()
    return PygameEntry(relative, _with_args(words[index + 1 :], args))


def _with_args(words: list[str], args: tuple[str, ...]) -> tuple[str, ...]:
    """The launcher's own arguments with the row's in place of ``"$@"`` (else after them)."""
    marks = [i for i, w in enumerate(words) if w in ("$@", "$*")]
    if not marks:
        return (*words, *args)
    at = marks[0]
    rest = [w for w in words[at + 1 :] if w not in ("$@", "$*")]
    return (*words[:at], *args, *rest)


def _merged(
    found: PygameEntry, cwd: str | None, python_path: list[str], tree: Path, launcher: str | None
) -> PygameEntry:
    """``found`` run from this launcher: its folder and ``PYTHONPATH`` as tree paths."""
    folder = found.cwd
    if folder is None and cwd is not None:
        folder = _in_tree(tree, cwd).relative_to(tree).as_posix() or "."
    extra = tuple(_in_tree(tree, p, cwd).relative_to(tree).as_posix() for p in python_path)
    return PygameEntry(
        found.entry, found.args, folder, extra + found.path, found.launcher or launcher
    )
