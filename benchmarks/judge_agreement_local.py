"""Frame judge vs state judge on the local corpus: play, judge both ways, compare field by field.

    .venv/bin/python benchmarks/judge_agreement_local.py [--agents random,explorer]
        [--episodes 2] [--steps 40] [--games ID,...] [--workers 2] [--out DIR] [--rejudge]

Plays every local game that declares probes (``config/corpora/local.yaml``) with the baseline
agents, a few seeded episodes each (``playsuite play``), then judges every episode three ways:

* ``state``: milestones from the recorded probe values (playsuite.judge.state_judge);
* ``frame``: the embedded default judge as shipped, pixels plus the probe values it merges in;
* ``pixels``: the frame judge on the same episode with the probe values withheld, i.e. what it
  sees of a game that declares no probes.

It prints, for each pair against ``state``, per-field agreement over the episodes both judged:
``score_or_resource_increased``, ``new_area_or_level_reached``, ``death_or_game_over_count > 0``,
``level`` (exact, and ``level >= 2``), with the 2x2 counts (both / only the first judge / only
state / neither) and the mean levels. Episodes and judgements are kept under ``--out``; a
second run reuses them (``--rejudge`` judges again without replaying).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "config" / "corpora" / "local.yaml"

#: name -> how to read it from a judgement (a bool, or the level as an int).
FIELDS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "score_or_resource_increased": lambda j: bool(j["score_or_resource_increased"]),
    "new_area_or_level_reached": lambda j: bool(j["new_area_or_level_reached"]),
    "death_or_game_over_count>0": lambda j: j["death_or_game_over_count"] > 0,
    "level>=2": lambda j: j["level"] >= 2,
    "level": lambda j: int(j["level"]),
}


@dataclass(frozen=True)
class FieldAgreement:
    """Agreement of two judges on one field over the episodes both judged."""

    field: str
    episodes: int
    agree: int
    both: int = 0  # boolean fields: true for both
    only_a: int = 0  # true for the first judge only
    only_b: int = 0  # true for the second judge only
    mean_a: float | None = None  # level: mean of each judge
    mean_b: float | None = None

    @property
    def rate(self) -> float | None:
        return self.agree / self.episodes if self.episodes else None


def field_agreement(
    pairs: Iterable[tuple[dict[str, Any], dict[str, Any]]],
    fields: Sequence[str] = tuple(FIELDS),
) -> list[FieldAgreement]:
    """Per-field agreement between judgement pairs (a, b) of the same episodes.

    A pair counts only when both judgements have ``status: ok`` (a failed or ``no_probes``
    judgement is no opinion, not a "false").
    """
    usable = [(a, b) for a, b in pairs if a.get("status") == "ok" and b.get("status") == "ok"]
    out = []
    for name in fields:
        read = FIELDS[name]
        values = [(read(a), read(b)) for a, b in usable]
        agree = sum(x == y for x, y in values)
        if name == "level":
            n = len(values)
            out.append(
                FieldAgreement(
                    name,
                    n,
                    agree,
                    mean_a=sum(x for x, _ in values) / n if n else None,
                    mean_b=sum(y for _, y in values) / n if n else None,
                )
            )
        else:
            out.append(
                FieldAgreement(
                    name,
                    len(values),
                    agree,
                    both=sum(x and y for x, y in values),
                    only_a=sum(x and not y for x, y in values),
                    only_b=sum(y and not x for x, y in values),
                )
            )
    return out


def format_agreement(title: str, rows: Sequence[FieldAgreement]) -> str:
    lines = [title, f"  {'field':30} {'n':>3} {'agree':>6}   both only-1st only-state"]
    for r in rows:
        rate = "-" if r.rate is None else f"{r.rate:6.0%}"
        if r.field == "level":
            means = (
                "" if r.mean_a is None else f"   mean {r.mean_a:.2f} vs {r.mean_b:.2f}"  # type: ignore[str-format]
            )
            lines.append(f"  {r.field:30} {r.episodes:3d} {rate:>6}{means}")
        else:
            counts = f"{r.both:4d} {r.only_a:8d} {r.only_b:10d}"
            lines.append(f"  {r.field:30} {r.episodes:3d} {rate:>6}   {counts}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- play


def play(game: str, agent: str, seed: int, steps: int, out: Path, games_dir: Path) -> str:
    """One episode with ``playsuite play``; returns its status (kept if already played)."""
    from playsuite.records.episode import episode_finished, read_meta

    if not episode_finished(out):
        cmd = [
            str(Path(sys.executable).with_name("playsuite")),
            "play",
            "--game",
            game,
            "--agent",
            agent,
            "--steps",
            str(steps),
            "--seed",
            str(seed),
            "--games-dir",
            str(games_dir),
            "--out",
            str(out),
        ]
        subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=False)
    if not episode_finished(out):
        return "no_episode"
    return read_meta(out)["status"]


def judge_all(episode_dir: Path) -> dict[str, dict[str, Any]]:
    """The episode judged by ``state``, ``frame`` and ``pixels`` (cached next to it)."""
    from playsuite.judge.episode import load_episode
    from playsuite.judge.frame_judge import judge_episode_frames
    from playsuite.judge.result import write_judgement
    from playsuite.judge.run import judge_one

    out: dict[str, dict[str, Any]] = {}
    for name in ("state", "frame", "pixels"):
        path = episode_dir.parent / f"{episode_dir.name}.{name}.json"
        if not path.exists():
            if name == "pixels":
                episode = load_episode(episode_dir)
                blind = replace(episode, steps=tuple(replace(s, probes={}) for s in episode.steps))
                judgement = judge_episode_frames(blind, "frame")
            else:
                judgement = judge_one(name, episode_dir)
            write_judgement(path, judgement)
        out[name] = json.loads(path.read_text())
    return out


def main() -> None:
    from playsuite.corpus import load_corpus
    from playsuite.runtimes.acquire import acquire

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="random,explorer")
    parser.add_argument("--episodes", type=int, default=2, help="seeded episodes per agent")
    parser.add_argument("--steps", type=int, default=40, help="agent steps (3 s each)")
    parser.add_argument("--games", help="comma-separated ids (default: all with probes)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games-dir", default=str(REPO / "results" / "games"))
    parser.add_argument("--out", default="/tmp/playsuite-judge-agreement")
    parser.add_argument("--rejudge", action="store_true", help="judge the kept episodes again")
    args = parser.parse_args()

    games = [g for g in load_corpus(CORPUS) if g.probes]
    if args.games:
        wanted = set(args.games.split(","))
        games = [g for g in games if g.id in wanted]
    games_dir = Path(args.games_dir)
    for game in games:
        acquire(game, games_dir, base_dir=REPO)
    out = Path(args.out)
    if args.rejudge:
        for path in out.glob("*/*.json"):
            if path.suffixes[-2:-1] in ([".state"], [".frame"], [".pixels"]):
                path.unlink()
    runs = [
        (g.id, agent, seed, out / g.id / f"{agent}-s{seed}")
        for g in games
        for agent in args.agents.split(",")
        for seed in range(args.episodes)
    ]
    started = time.monotonic()

    def one(run: tuple[str, str, int, Path]) -> tuple[str, str, int, str]:
        game, agent, seed, episode_dir = run
        status = play(game, agent, seed, args.steps, episode_dir, games_dir)
        print(f"  played {game} {agent} seed {seed}: {status}", flush=True)
        return game, agent, seed, status

    with ThreadPoolExecutor(args.workers) as pool:
        statuses = list(pool.map(one, runs))
    play_s = time.monotonic() - started
    judged: list[tuple[str, str, dict[str, dict[str, Any]]]] = []
    for (game, agent, _, status), (*_, episode_dir) in zip(statuses, runs, strict=True):
        if status != "no_episode":
            judged.append((game, agent, judge_all(episode_dir)))

    print(f"\n{len(judged)} episodes ({args.steps} steps, {args.steps * 3} s of game time each)")
    print(f"played in {play_s:.0f} s wall\n")
    print(f"{'game':20} {'agent':9} {'state':>5} {'frame':>5} {'pixels':>6}  state milestones")
    for game, agent, j in judged:
        s = j["state"]
        marks = [
            f for f in ("score_or_resource_increased", "new_area_or_level_reached") if s.get(f)
        ]
        if s.get("death_or_game_over_count"):
            marks.append(f"deaths={s['death_or_game_over_count']}")
        print(
            f"{game:20} {agent:9} {s.get('level', '-')!s:>5} {j['frame'].get('level', '-')!s:>5} "
            f"{j['pixels'].get('level', '-')!s:>6}  {', '.join(marks)}"
        )
    for first in ("pixels", "frame"):
        pairs = [(j[first], j["state"]) for _, _, j in judged]
        print()
        print(format_agreement(f"{first} vs state (all games)", field_agreement(pairs)))
    print()
    for game in sorted({g for g, _, _ in judged}):
        pairs = [(j["pixels"], j["state"]) for g, _, j in judged if g == game]
        print(format_agreement(f"pixels vs state: {game}", field_agreement(pairs)))


if __name__ == "__main__":
    main()
