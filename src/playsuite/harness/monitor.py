"""Extra logging for games the safety triage put on ``monitor`` (risk 3).

Triage cannot prove an archive harmless; a game with a Windows executable next to its web build,
or an ELF in a Python game, is played but watched. A monitored episode keeps, in its own log
folder ``{log_dir}/monitor/{game}/``:

* ``processes.tsv`` -- every process the game's sandbox ran (everything below the worker process
  while the episode plays: the sandbox, the game and its children; for browser games Chromium
  and its driver), one ``start`` row when a process is first seen and one ``exit`` row when it is
  gone, with wall time, pid, parent, resident memory and command line (processes the worker keeps
  across games, such as its shared Chromium or Xvfb, appear at the first sample). Sampled every
  ``interval_s`` seconds, so a process that lives shorter than that may be missed;
* the game's own output: ``game.log`` (pygame and native games: stdout and stderr) and
  ``browser.log`` (page console, page errors, blocked requests), copied when the episode ends.

The episode's ``meta.json`` says ``monitored: true`` and where the folder is.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from playsuite.files import atomic_open
from playsuite.records.episode import GAME_LOG_NAMES
from playsuite.runtimes import procs

MONITOR_DIR = "monitor"
PROCESSES = "processes.tsv"
GAME_LOGS = GAME_LOG_NAMES  # the episode directory keeps them too (bounded); here: whole
HEADER = "t_s\tevent\tpid\tppid\trss_kb\tcmdline\n"


def needs_monitoring(game_options: dict[str, Any]) -> bool:
    """Whether a corpus row's triage verdict (``options.triage.policy``) asks for monitoring."""
    triage = game_options.get("triage") or {}
    return isinstance(triage, dict) and triage.get("policy") == "monitor"


def monitor_dir(log_dir: Path, game_id: str) -> Path:
    return Path(log_dir) / MONITOR_DIR / game_id


def _status(pid: int) -> tuple[int, int]:
    """(parent pid, resident memory in kB) from /proc; zeros when the process is gone."""
    ppid = rss = 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("PPid:"):
                ppid = int(line.split()[1])
            elif line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return ppid, rss


class ProcessMonitor:
    """Samples the process tree below ``root_pid`` on a thread and logs starts and exits."""

    def __init__(self, root_pid: int, path: Path, interval_s: float = 0.2) -> None:
        self.root_pid = root_pid
        self.path = Path(path)
        self.interval_s = interval_s
        self.seen: dict[int, str] = {}  # pid -> command line, every process seen so far
        self._alive: set[int] = set()
        self._rows: list[str] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()

    def sample(self) -> None:
        """Record processes that appeared or ended since the last sample."""
        now = time.monotonic() - self._t0
        current = {pid for pid in procs.descendants(self.root_pid) if procs.alive(pid)}
        for pid in sorted(current - self._alive):
            argv = " ".join(procs.cmdline(pid)).replace("\t", " ").replace("\n", " ")
            ppid, rss = _status(pid)
            self.seen[pid] = argv
            self._rows.append(f"{now:.3f}\tstart\t{pid}\t{ppid}\t{rss}\t{argv}\n")
        for pid in sorted(self._alive - current):
            self._rows.append(f"{now:.3f}\texit\t{pid}\t\t\t{self.seen.get(pid, '')}\n")
        self._alive = current

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def start(self) -> ProcessMonitor:
        self.sample()
        self._thread = threading.Thread(target=self._run, name="process-monitor", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sampling (one last sample) and write the log atomically."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.sample()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(self.path) as fh:
            fh.write(HEADER + "".join(self._rows))

    def __enter__(self) -> ProcessMonitor:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class EpisodeMonitor:
    """A monitored episode's extra logging: the process list while it plays, then the game's logs
    out of its scratch folder (which the worker deletes afterwards)."""

    def __init__(self, out_dir: Path, workdir: Path, interval_s: float = 0.2) -> None:
        self.out_dir = Path(out_dir)
        self.workdir = Path(workdir)
        if self.out_dir.exists():  # a rerun replaces what an earlier attempt left
            shutil.rmtree(self.out_dir)
        self.out_dir.mkdir(parents=True)
        self.processes = ProcessMonitor(os.getpid(), self.out_dir / PROCESSES, interval_s)

    def __enter__(self) -> EpisodeMonitor:
        self.processes.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.processes.stop()
        for name in GAME_LOGS:
            for path in sorted(self.workdir.rglob(name)):
                target = self.out_dir / path.relative_to(self.workdir)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
