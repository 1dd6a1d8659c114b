"""The catalog's launch dry-run: fetch a triaged candidate, unpack it safely, start it for real.

A game that passed triage is acquired from its archive (:func:`playsuite.runtimes.acquire.acquire`,
which triages the bytes again and unpacks them with ``safe_extract``; a quarantined archive is
never unpacked) and then played twice briefly in the sandbox by the runtimes' own launch validator
(:func:`playsuite.runtimes.validate.validate_launch`). The verdict is one JSON file per game in
the shape the funnel's launch stage reads (docs/catalog.md), so the curated table only keeps games
that really rendered and reacted to input here.

A dump row need not say how to start a Linux build. The dry-run then looks for the start command
the way a person would: a launcher script at the top of the build, else the build's only ELF
executable, and records what it used as ``entry``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import tempfile
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from playsuite.catalog.debian_index import runtime_options
from playsuite.catalog.ingest import RawGame
from playsuite.catalog.npm_entry import npm_entry
from playsuite.catalog.pypi_entry import pypi_entry
from playsuite.corpus import GameEntry
from playsuite.records.episode import GAME_LOG_NAMES
from playsuite.runtimes.acquire import AcquisitionError, acquire, game_root
from playsuite.runtimes.base import RunStatus

#: Wall-clock bound on a launch in the dry-run (``catalog.launch.timeout_s``); the runtimes'
#: default is 60 s, and a dry-run that waits that long on every blank page is slow for nothing.
DEFAULT_TIMEOUT_S = 30.0
#: Frames per second of game time the dry-run compares. The verdict needs a few frames per input
#: step, not a video: at the harness's rates a browser dry-run spends a minute on screenshots.
VIDEO_FPS = 2.0


def candidate_row(game: RawGame, package: str, triage: dict[str, Any]) -> GameEntry:
    """The corpus row the dry-run starts: the dump's fields, the archive, the triage verdict."""
    return GameEntry(
        id=game.id,
        title=game.title,
        author=game.author,
        source=game.source,
        package=package,
        version=game.version or None,
        runtime=game.runtime,
        entry=game.start,
        tags=tuple(game.tags),
        description=game.description,
        controls=game.controls,
        rating=game.rating,
        rating_count=game.rating_count,
        screen=game.screen or None,
        options={
            "triage": {"risk": triage["risk"], "policy": triage["policy"]},
            **runtime_options(game),
        },
    )


def _executable(path: Path) -> bool:
    mode = path.lstat().st_mode
    return stat.S_ISREG(mode) and bool(mode & stat.S_IXUSR)


def find_native_entry(files: Path, executables: list[str]) -> str:
    """How to start a Linux build that names no start command; ``""`` when it is ambiguous.

    The shallowest executable ``*.sh`` launcher wins when it is the only one at its depth; else
    the build's only ELF executable (``executables``: the triage scan's list, archive paths).
    """
    launchers = sorted(
        (len(p.relative_to(files).parts), p.relative_to(files).as_posix())
        for p in files.rglob("*.sh")
        if _executable(p)
    )
    if launchers:
        depth = launchers[0][0]
        top = [name for d, name in launchers if d == depth]
        if len(top) == 1:
            return top[0]
    if len(executables) == 1 and (files / executables[0]).is_file():
        return executables[0]
    return ""


def debian_entry(files: Path, package: str) -> str:
    """The launcher of an unpacked Debian game: ``/usr/games/{package}`` when the package has it,
    else its only executable in ``/usr/games``, else the only one of them its desktop menu
    entries start (``Exec=`` of ``usr/share/applications/*.desktop``: what a player clicks);
    ``""`` when that is still ambiguous."""
    games = files / "usr/games"
    found = sorted(p.name for p in games.iterdir() if _executable(p)) if games.is_dir() else []
    if package in found:
        return f"/usr/games/{package}"
    if len(found) == 1:
        return f"/usr/games/{found[0]}"
    menu = {name for name in _desktop_programs(files) if name in found}
    return f"/usr/games/{menu.pop()}" if len(menu) == 1 else ""


def _desktop_programs(files: Path) -> list[str]:
    """The program names the package's desktop entries run: the first word of each ``Exec=``,
    looking through ``sh -c "..."`` and ``env VAR=value`` wrappers."""
    names = []
    for path in sorted((files / "usr/share/applications").glob("*.desktop")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("Exec="):
                program = _exec_program(line[5:])
                if program:
                    names.append(program)
    return names


def _exec_program(command: str) -> str:
    try:
        words = shlex.split(command)
    except ValueError:
        return ""
    while words:
        name = Path(words[0]).name
        if name in ("sh", "bash") and len(words) > 2 and words[1] == "-c":
            return _exec_program(words[2])
        if name == "env" or "=" in words[0]:
            words = words[1:]
            continue
        return name
    return ""


def entry_path(files: Path, entry: str) -> Path:
    """Where an entry's program lies in the unpacked tree (Debian entries are installed paths)."""
    return files / entry.split()[0].lstrip("/")


def _explanation(workdir: Path, limit: int = 300) -> str:
    """The first telling line of the game's own logs (a page error, a traceback's last line)."""
    for path in sorted(p for name in GAME_LOG_NAMES for p in workdir.rglob(name)):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for i, line in enumerate(lines):
            if line.startswith("pageerror:"):
                return line[:limit]
            if line.startswith("Traceback"):
                tail = [t for t in lines[i + 1 :] if t and not t.startswith(" ")]
                if tail:
                    return tail[0][:limit]
    return ""


def _failed(game_id: str, runtime: str, error: str, **extra: Any) -> dict[str, Any]:
    return {
        "game": game_id,
        "runtime": runtime,
        "ok": False,
        "status": str(RunStatus.LAUNCH_FAILED),
        "error": error,
        **extra,
    }


def launch_candidate(
    game: RawGame,
    package: str,
    triage: dict[str, Any],
    work_dir: str | os.PathLike[str],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    base_dir: str | os.PathLike[str] | None = None,
    log: IO[str] | None = None,
    games_dir: str | os.PathLike[str] | None = None,
    conformance: bool = False,
) -> dict[str, Any]:
    """Acquire ``game`` from ``package`` under ``work_dir`` (or ``games_dir``) and validate its
    launch (with ``conformance``: the whole runtime contract, :func:`launch_row`).

    Returns the launch result (``game``, ``status``, ``ok``, ``error``, ``entry``, ``policy``,
    and the validator's measurements). Failures of the game or its archive are results, not
    exceptions. ``log`` receives the acquisition's steps and the game's own logs of every run.
    """
    return launch_row(
        candidate_row(game, package, triage),
        list(triage.get("executables") or []),
        work_dir,
        timeout_s=timeout_s,
        base_dir=base_dir,
        log=log,
        games_dir=games_dir,
        conformance=conformance,
    )


def launch_row(
    row: GameEntry,
    executables: list[str],
    work_dir: str | os.PathLike[str],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    base_dir: str | os.PathLike[str] | None = None,
    log: IO[str] | None = None,
    games_dir: str | os.PathLike[str] | None = None,
    conformance: bool = False,
) -> dict[str, Any]:
    """Acquire one corpus row and validate its launch (see :func:`launch_candidate`).

    ``games_dir`` (default: under ``work_dir``) may be shared by several rows so that Debian
    dependency closures are fetched into one store; ``executables`` is the triage scan's list.
    With ``conformance`` the acquired game goes through the whole runtime contract instead
    (:func:`playsuite.harness.conformance.check_game`: the launch check plus the video check);
    the result then also carries ``checks`` and ``failed_check``.
    """
    game_id = row.id
    triage = row.options.get("triage") or {"policy": "clean"}
    work = Path(work_dir)
    base = {"entry": row.entry, "policy": triage["policy"], "archive": row.package}
    try:
        acquired = acquire(row, games_dir or work / "games", base_dir=base_dir, log=log)
    except AcquisitionError as exc:
        return _failed(game_id, row.runtime, f"acquisition failed: {exc}", **base)
    base["policy"] = acquired.manifest.get("triage", {}).get("policy", triage["policy"])
    base["files_sha256"] = acquired.manifest["files_sha256"]
    entry, args = row.entry, row.args
    if row.source == "debian" and (not entry or not entry_path(acquired.files, entry).exists()):
        entry = debian_entry(acquired.files, row.package)
    if row.source == "pypi" and not entry:
        entry, args = pypi_entry(acquired.files, row.package, row.runtime)
    if row.source == "npm" and not entry:
        entry = npm_entry(acquired.files)
    if not entry and row.runtime == "native":
        entry = find_native_entry(acquired.files, executables)
    if entry != row.entry or args != row.args:
        row = GameEntry.from_dict({**row.to_dict(), "entry": entry, "args": list(args)})
        base["entry"] = entry
        if args:
            base["args"] = list(args)
    if not row.entry:
        return _failed(game_id, row.runtime, "no entry point known", **base)
    if row.runtime == "pygame":
        # A Debian pygame game keeps its launcher as the entry: the runtime follows it to the
        # script it runs (playsuite.runtimes.pygame_entry); a launcher it cannot follow fails
        # here, with the runtime's own reason.
        from playsuite.runtimes.pygame_entry import EntryError, resolve_entry

        try:
            resolve_entry(row, acquired.files)
        except EntryError as exc:
            return _failed(game_id, row.runtime, str(exc), **base)
    # a pygame ``module:function`` entry is imported from the venv, not a file of the tree
    from playsuite.runtimes.pygame_entry import is_module_entry

    module_entry = row.runtime == "pygame" and is_module_entry(row.entry)
    if (
        row.runtime != "browser"
        and not module_entry
        and not entry_path(acquired.files, row.entry).exists()
    ):
        return _failed(game_id, row.runtime, f"entry {row.entry!r} is not in the archive", **base)

    from playsuite.runtimes.resources import WorkerResources
    from playsuite.runtimes.validate import validate_launch

    runs = work / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    try:
        # One Chromium or X display for the validator's three short runs.
        with WorkerResources(work / "shared") as resources:
            if conformance:
                return {**_conformance(row, acquired.files, runs, resources, timeout_s), **base}
            result = validate_launch(
                row,
                acquired.files,
                runs,
                launch_timeout_s=timeout_s,
                video_fps=VIDEO_FPS,
                resources=resources,
            )
        if not result.get("ok"):
            result["error"] = concise_error(result.get("error", ""), _explanation(runs))
    finally:
        if log is not None:
            _copy_logs(runs, log)
    return {**result, **base}


def _conformance(
    row: GameEntry, files: Path, runs: Path, resources: Any, timeout_s: float
) -> dict[str, Any]:
    """The conformance report of an acquired row in the launch result's shape: ``status`` is
    ``ok`` or the first failed check's name, ``error`` that check's reason in one line."""
    from playsuite.harness.conformance import check_game

    report = check_game(row, files, runs, resources=resources, launch_timeout_s=timeout_s)
    verdict = report.to_dict()
    failed = verdict["failed_check"]
    return {
        **verdict,
        "status": "ok" if report.ok else f"{failed or 'incomplete'} check failed",
        "error": concise_error(verdict["reason"], _explanation(runs)) if failed else "",
    }


def concise_error(error: str, explanation: str = "") -> str:
    """One line for the exclusion list: a traceback shrinks to its exception line, and the
    game's own complaint (a page error) is added when the runtime's verdict does not show it."""
    text = error.strip()
    if "Traceback (most recent call last):" in text:
        head, _, trace = text.partition("Traceback (most recent call last):")
        last = [t for t in trace.splitlines() if t.strip() and not t.startswith(" ")]
        text = (head.strip() + " " + (last[-1] if last else "")).strip()
    text = " ".join(text.split())
    if explanation and explanation not in text:
        text = f"{text}; {explanation}" if text else explanation
    return text


def _copy_logs(runs: Path, log: IO[str]) -> None:
    """The game's logs of each run (idle, input, idle-again), one section each."""
    for path in sorted(p for name in GAME_LOG_NAMES for p in runs.rglob(name)):
        text = path.read_text(encoding="utf-8", errors="replace")
        log.write(f"== {path.relative_to(runs)}\n{text}\n")
    log.flush()


def step_launch(
    records: str | os.PathLike[str],
    triage_file: str | os.PathLike[str],
    game_id: str,
    package: str,
    out: str | os.PathLike[str],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    log: IO[str] | None = None,
    games_dir: str | os.PathLike[str] | None = None,
    conformance: bool = False,
) -> dict[str, Any]:
    """Rule ``catalog_launch``: the dry-run of one candidate, written to ``out`` atomically,
    with the UTC date it was ``checked`` on, its ``wall_s`` and which ``check`` it was
    (``launch``, or ``conformance``: the whole runtime contract; a corpus's ``check`` key).

    The game is unpacked under ``games_dir`` (default: a temporary folder next to ``out``) and
    removed afterwards: the verdict is the product; the play stage acquires games it plays on its
    own. The Debian package store in ``games_dir`` (``.debian``) is kept, so launch jobs that
    share ``games_dir`` download a library many games need once (concurrent jobs may fill it;
    see :mod:`playsuite.runtimes.fetchers.debian_closure`).
    """
    from playsuite.catalog.curate import read_jsonl
    from playsuite.catalog.ingest import read_records
    from playsuite.files import write_json_atomic

    records_by_id = {g.id: g for g in read_records(records)}
    rows = {row["id"]: row for row in read_jsonl(triage_file)}
    if game_id not in records_by_id:
        raise ValueError(f"{game_id}: not in {records}")
    row = rows.get(game_id)
    if row is None or row.get("stage"):
        raise ValueError(f"{game_id}: did not pass triage ({triage_file}); it is never launched")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{game_id}.launch-", dir=Path(out).parent))
    games = Path(games_dir) if games_dir else work / "games"
    started = time.monotonic()
    try:
        result = launch_candidate(
            records_by_id[game_id],
            package,
            row,
            work,
            timeout_s=timeout_s,
            log=log,
            games_dir=games,
            conformance=conformance,
        )
    except Exception as exc:  # a harness bug on one game is that game's result, named as such
        if log is not None:
            log.write(traceback.format_exc())
        result = _failed(game_id, records_by_id[game_id].runtime, f"{type(exc).__name__}: {exc}")
        result["status"] = str(RunStatus.HARNESS_ERROR)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(game_root(games, game_id), ignore_errors=True)
    result = {
        **result,
        "check": "conformance" if conformance else "launch",
        "checked": datetime.now(UTC).date().isoformat(),
        "wall_s": round(time.monotonic() - started, 1),
    }
    write_json_atomic(out, result)
    return result
