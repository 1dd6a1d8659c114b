"""Launch -> first frame and per-step harness overhead of each runtime, on the local corpus.

    .venv/bin/python benchmarks/runtime_launch.py [--runtime pygame] [--repeats 3] [--games-dir D]

For each game of the selected runtimes (medians of the repeats): the wall time from ``start()``
to the first frame (cold: a fresh sandbox and process each time), the wall time of
``act([wait], slice)`` for a 1/3 s and a 3 s slice (the two action rates of the paper's
conditions), which is game compute plus capture, transfer and decoding, and ``close()``. The
pygame ``eager`` variant starts the host without its import hook (numpy and pkg_resources
loaded up front), for comparison.
Targets (issue 3): pygame launch <= 0.5 s, browser (reused
browser) <= 1.0 s for light games, native <= 1.5 s. Browser variants: ``cold`` launches a
sandboxed Chromium per game (driver + browser + page), ``reused`` opens a fresh context in one
worker browser. Native variants: ``cold`` starts its own Xvfb and compiles shaders into a
per-run cache, ``worker`` uses the worker's display and shader cache (the harness's setup).
Native steps run in real time, so their overhead is the step time minus the slice.

Runtimes with their own setups (a reused browser) register a launcher in :data:`LAUNCHERS`;
the default launcher starts a fresh runtime from :func:`playsuite.runtimes.factory.make_runtime`.
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from playsuite.actions import Wait
from playsuite.corpus import GameEntry, load_corpus
from playsuite.runtimes.acquire import acquire
from playsuite.runtimes.base import Runtime, RuntimeOptions
from playsuite.runtimes.factory import RUNTIMES, make_runtime
from playsuite.runtimes.resources import WorkerResources

REPO = Path(__file__).resolve().parents[1]

#: (label, runtime kind) -> function making a not-yet-started runtime. Add entries for
#: variants such as a browser reused across games.
Launcher = Callable[[GameEntry, RuntimeOptions], Runtime]
LAUNCHERS: dict[tuple[str, str], Launcher] = {("cold", kind): make_runtime for kind in RUNTIMES}


def _eager_pygame(game: GameEntry, options: RuntimeOptions) -> Runtime:
    """The pygame host without its import hook (``lazy_imports: false``): the old start."""
    return make_runtime(replace(game, options={**game.options, "lazy_imports": False}), options)


LAUNCHERS[("eager", "pygame")] = _eager_pygame


# -- browser and native: the worker-owned resources a harness keeps across games --------------

_WORKER: list[WorkerResources] = []


def _worker() -> WorkerResources:
    """The resources one harness worker keeps (runtimes.resources), made once for all "reused"
    and "worker" runs; its Chromium is launched when first asked for, outside the timed start."""
    if not _WORKER:
        scratch = Path(tempfile.mkdtemp(prefix="playsuite-worker-"))
        resources = WorkerResources(scratch, warm=True)
        atexit.register(shutil.rmtree, scratch, True)  # runs after close (last in, first out)
        atexit.register(resources.close)
        _WORKER.append(resources)
    return _WORKER[0]


def _reused_browser(game: GameEntry, options: RuntimeOptions) -> Runtime:
    return make_runtime(game, replace(_worker().options_for(game, options), video_fps=10.0))


def _worker_display(game: GameEntry, options: RuntimeOptions) -> Runtime:
    """A native game on the worker's Xvfb with the worker's Mesa shader cache."""
    return make_runtime(game, _worker().options_for(game, options))


LAUNCHERS[("reused", "browser")] = _reused_browser
LAUNCHERS[("worker", "native")] = _worker_display


def measure(game: GameEntry, files: Path, launcher: Launcher, repeats: int) -> dict[str, float]:
    launches, short, long, closes = [], [], [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            rt = launcher(game, RuntimeOptions(workdir=Path(tmp), game_dir=files))
            try:
                t0 = time.perf_counter()
                rt.start()
                launches.append(time.perf_counter() - t0)
                for seconds, out in ((1 / 3, short), (3.0, long)):
                    for _ in range(3):
                        t0 = time.perf_counter()
                        rt.act([Wait()], seconds)
                        out.append(time.perf_counter() - t0)
            finally:
                t0 = time.perf_counter()
                rt.close()
                closes.append(time.perf_counter() - t0)
    return {
        "launch_s": statistics.median(launches),
        "step_0.33s": statistics.median(short),
        "step_3s": statistics.median(long),
        "close_s": statistics.median(closes),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", action="append", help="runtime kind(s) to measure")
    parser.add_argument("--game", action="append", help="only these game ids")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games-dir", default=str(REPO / "results" / "games"))
    args = parser.parse_args()
    games = load_corpus(REPO / "config" / "corpora" / "local.yaml")
    print(
        f"{'runtime':10} {'variant':8} {'game':24} {'launch':>8} {'step 1/3s':>10} "
        f"{'step 3s':>8} {'close':>7}"
    )
    for (variant, kind), launcher in LAUNCHERS.items():
        if args.runtime and kind not in args.runtime:
            continue
        for game in games:
            if game.runtime != kind or (args.game and game.id not in args.game):
                continue
            files = acquire(game, args.games_dir, base_dir=REPO).files
            r = measure(game, files, launcher, args.repeats)
            print(
                f"{kind:10} {variant:8} {game.id:24} {r['launch_s']:8.3f} "
                f"{r['step_0.33s']:10.3f} {r['step_3s']:8.3f} {r['close_s']:7.3f}"
            )


if __name__ == "__main__":
    main()
