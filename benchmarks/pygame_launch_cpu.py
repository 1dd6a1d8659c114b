"""CPU seconds a pygame game spends to reach its first frame, with and without the import hook.

    .venv/bin/python benchmarks/pygame_launch_cpu.py [--repeats 5] [--game ID]

Wall-clock launch times (benchmarks/runtime_launch.py) swing with the machine's load; the CPU
time of the sandboxed processes (user + system, read from /proc when the first frame has
arrived) does not, so it shows what a change to the host saves. For each pygame game of the
local corpus and each variant (``lazy``: the host's import hook, the default; ``eager``:
``options.lazy_imports: false``), interleaved so both see the same load, it prints the medians
of: launch wall time, sandbox CPU at the first frame, and ``close()`` wall time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from playsuite.corpus import GameEntry, load_corpus
from playsuite.runtimes.acquire import acquire
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.pygame_runtime import PygameRuntime

REPO = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def launch_once(game: GameEntry, files: Path, lazy: bool) -> tuple[float, float, float]:
    """(launch wall s, sandbox CPU s at the first frame, close wall s)."""
    row = replace(game, options={**game.options, "lazy_imports": lazy})
    with tempfile.TemporaryDirectory() as tmp:
        rt = PygameRuntime(row, RuntimeOptions(workdir=Path(tmp), game_dir=files))
        t0 = time.perf_counter()
        rt.start()
        launch = time.perf_counter() - t0
        assert rt.proc is not None
        cpu = _cpu_s([rt.proc.pid, *rt.proc.alive_in_namespace()])
        t0 = time.perf_counter()
        rt.close()
        return launch, cpu, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--game", action="append", help="only these game ids")
    parser.add_argument("--games-dir", default=str(REPO / "results" / "games"))
    args = parser.parse_args()
    games = [
        g
        for g in load_corpus(REPO / "config" / "corpora" / "local.yaml")
        if g.runtime == "pygame" and (not args.game or g.id in args.game)
    ]
    print(f"{'game':22} {'variant':7} {'launch s':>9} {'CPU s':>7} {'close s':>8}")
    for game in games:
        files = acquire(game, args.games_dir, base_dir=REPO).files
        runs: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
        for _ in range(args.repeats):
            for lazy in (False, True):
                runs[lazy].append(launch_once(game, files, lazy))
        for lazy in (False, True):
            launch, cpu, close = (statistics.median(x) for x in zip(*runs[lazy], strict=True))
            name = "lazy" if lazy else "eager"
            print(f"{game.id:22} {name:7} {launch:9.3f} {cpu:7.3f} {close:8.3f}")


if __name__ == "__main__":
    main()
