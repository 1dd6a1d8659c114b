"""Native games faster than real time: wall seconds per game second and delivered frames, at
1x, 2x and 4x (``play.native_clock_rate``), side by side in one run.

    .venv/bin/python benchmarks/native_clock_rate.py [--rates 1 2 4] [--seconds 6] [--games-dir D]

For each native game of the local corpus, LTris (an SDL 1.2 game from its row alone) and the
clock-window test program: start the game on one worker display, play ``--seconds`` of game time
in 0.5 s slices of waiting, and print, per rate, the wall seconds the slices took per game
second, the frames per game second that showed a new picture (what the recorder gets), and
whether the runtime fell back to real time. For the clock-window program, which reports its own
monotonic clock, the table also prints how many seconds that clock moved per game second: 1.00
means game time stayed exact at that rate.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from playsuite.actions import Wait
from playsuite.corpus import GameEntry, load_corpus
from playsuite.runtimes.acquire import acquire
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from playsuite.runtimes.native_runtime import NativeRuntime
from playsuite.runtimes.resources import WorkerResources

REPO = Path(__file__).resolve().parents[1]
SLICE_S = 0.5
FPS = 10.0
CLOCK_WINDOW = GameEntry.from_dict(
    {
        "id": "clock-window",
        "title": "Clock window (test program)",
        "source": "local",
        "package": "tests/runtimes/data/native",
        "runtime": "native",
        "entry": "/usr/bin/python3",
        "args": ["/game/clock_window.py"],
    }
)
LTRIS = GameEntry.from_dict(
    {
        "id": "ltris",
        "title": "LTris",
        "source": "debian",
        "package": "ltris",
        "runtime": "native",
        "entry": "/usr/games/ltris",
    }
)


@dataclass
class Measured:
    wall_per_game_s: float
    new_frames_per_game_s: float
    own_clock_per_game_s: float | None
    fallback: str | None


def measure(
    game: GameEntry, files: Path, worker: WorkerResources, rate: float, seconds: float
) -> Measured:
    with tempfile.TemporaryDirectory() as tmp:
        options = RuntimeOptions(workdir=Path(tmp), game_dir=files, video_fps=FPS, clock_rate=rate)
        runtime = make_runtime(game, worker.options_for(game, options))
        assert isinstance(runtime, NativeRuntime)
        with runtime:
            runtime.start()
            runtime.act([Wait()], 2.0)  # past the title's fade-in
            state = Path(tmp) / "sandbox/home/state.json"
            clock0 = json.loads(state.read_text())["t"] if state.exists() else None
            wall = 0.0
            frames: list[np.ndarray] = []
            for _ in range(round(seconds / SLICE_S)):
                frames += runtime.act([Wait()], SLICE_S)
                wall += runtime.last_slice_wall_s or 0.0
            new = sum(not np.array_equal(a, b) for a, b in itertools.pairwise(frames))
            own = None
            if clock0 is not None:
                own = (json.loads(state.read_text())["t"] - clock0) / seconds
            return Measured(wall / seconds, new / seconds, own, runtime.clock_fallback)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[1.0, 2.0, 4.0])
    parser.add_argument("--seconds", type=float, default=6.0, help="game seconds per rate")
    parser.add_argument("--games-dir", type=Path, default=REPO / "results/test-cache/games")
    args = parser.parse_args()
    corpus = [g for g in load_corpus(REPO / "config/corpora/local.yaml") if g.runtime == "native"]
    games = [CLOCK_WINDOW, *corpus, LTRIS]
    header = f"{'game':<22}{'rate':>5}{'wall s/game s':>15}{'new frames/game s':>19}"
    print(header + f"{'own clock/game s':>18}  fallback")
    with tempfile.TemporaryDirectory() as scratch, WorkerResources(Path(scratch)) as worker:
        for game in games:
            if game is CLOCK_WINDOW:
                files = REPO / "tests/runtimes/data/native"
            else:
                files = acquire(game, args.games_dir, base_dir=REPO).files
            for rate in args.rates:
                m = measure(game, files, worker, rate, args.seconds)
                own = f"{m.own_clock_per_game_s:.2f}" if m.own_clock_per_game_s else "-"
                print(
                    f"{game.id:<22}{rate:>5g}{m.wall_per_game_s:>15.3f}"
                    f"{m.new_frames_per_game_s:>19.1f}{own:>18}  {m.fallback or '-'}"
                )


if __name__ == "__main__":
    main()
