"""``playsuite play`` (one episode) and ``playsuite play-shard`` (a node job of the workflow)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from playsuite.config import Condition, config_dir, schema_default
from playsuite.corpus import GameEntry, find_game, load_corpus
from playsuite.files import InsufficientSpace
from playsuite.harness.costs import HEARTBEAT_S
from playsuite.harness.episode import EpisodeLimits
from playsuite.harness.job import apply_condition, condition_clock_rate
from playsuite.harness.protocol import PlayProtocol, check_condition_protocol
from playsuite.inference.engine import DEFAULT_VLLM
from playsuite.locks import ShardBusy
from playsuite.processes import Terminated
from playsuite.records.episode import episode_finished, read_meta
from playsuite.registry import load_registry

DEFAULT_CONDITION = "k0-hz0.33-base"
#: Paper caps: PyWeek (pygame) runs stop at 10,000 frames of 30 fps video; itch.io-style runs
#: (browser, native) at 300 s of game time.
PAPER_LIMITS = {
    "pygame": EpisodeLimits(max_frames=10_000, max_game_s=None),
    "browser": EpisodeLimits(max_game_s=300.0),
    "native": EpisodeLimits(max_game_s=300.0),
}


def limits_for(
    max_steps: int | None, wall_timeout_s: float | None, action_budget: int | None = None
) -> dict[str, EpisodeLimits]:
    """The paper's caps per runtime, optionally shortened to ``max_steps`` steps; with an
    ``action_budget`` (GameWorld's length) the episode is that many steps and nothing else."""
    if action_budget is not None:
        budget = EpisodeLimits(
            max_steps=action_budget, max_game_s=None, max_frames=None, wall_timeout_s=wall_timeout_s
        )
        return dict.fromkeys(PAPER_LIMITS, budget)
    return {
        runtime: EpisodeLimits(
            max_steps=max_steps,
            max_game_s=base.max_game_s,
            max_frames=base.max_frames,
            wall_timeout_s=wall_timeout_s,
        )
        for runtime, base in PAPER_LIMITS.items()
    }


def protocol_for(args: argparse.Namespace, condition: Condition) -> PlayProtocol:
    """The episodes' protocol: the command's ``--action-budget``, ``--reset-on-fail`` and
    ``--realtime`` (the run's ``play.*``), with the condition's own settings over them."""
    check_condition_protocol(condition)
    run = PlayProtocol(
        action_budget=args.action_budget,
        reset_on_fail=args.reset_on_fail,
        realtime=args.realtime,
    )
    return run.for_condition(condition)


def step_count(text: str) -> int:
    """``--steps``: an episode of no step would be an ``ok`` episode with nothing in it."""
    try:
        steps = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if steps < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {steps}")
    return steps


def _catalog(path: str | None) -> list[GameEntry]:
    return load_corpus(path or config_dir() / "corpora" / "local.yaml")


def _play(args: argparse.Namespace) -> int:
    from playsuite.harness.node import ServerSettings, ShardJob, run_shard
    from playsuite.runtimes.acquire import acquire

    games = _catalog(args.catalog)
    game = find_game(games, args.game)
    registry = load_registry()
    condition = Condition.parse(args.condition)
    preset, steps = apply_condition(registry.preset(args.agent), condition, args.steps)
    protocol = protocol_for(args, condition)
    games_dir = Path(args.games_dir)
    acquire(game, games_dir)
    out = Path(args.out)
    # One episode is a shard of one game whose episode directory is exactly --out.
    job = ShardJob(
        corpus=args.corpus,
        preset=preset,
        condition=condition,
        games=[game],
        runs_dir=out.parent,
        games_dir=games_dir,
        workers=1,
        limits_by_runtime=limits_for(steps, args.wall_timeout, protocol.action_budget),
        protocol=protocol,
        base_seed=args.seed,
        server=ServerSettings.from_schema(
            vllm=args.vllm,
            ready_timeout_s=args.ready_timeout,
            max_restarts=args.server_restarts,
            monitor_interval_s=args.server_monitor,
        ),
        log_dir=out.parent / f".{out.name}-logs",
        live=False,
        single_episode_dir=out,
        sandbox=args.sandbox,
        apptainer_image=args.apptainer_image,
        native_clock_rate=condition_clock_rate(condition, args.native_clock_rate),
        lock_wait_s=args.lock_wait,
        min_free_mb=args.min_free_mb,
    )
    code = _run_job(args.command, lambda: run_shard(job))
    if episode_finished(out):
        meta = read_meta(out)
        print(
            json.dumps(
                {
                    k: meta.get(k)
                    for k in (
                        "game",
                        "status",
                        "steps",
                        "frames",
                        "t_game",
                        "invalid_rate",
                        "error",
                    )
                }
            )
        )
    return code


def _play_shard(args: argparse.Namespace) -> int:
    from playsuite.harness.node import ServerSettings, ShardJob, run_shard

    games = load_corpus(args.catalog)
    shard_games = [find_game(games, gid) for gid in args.games.split(",") if gid]
    registry = load_registry(args.models) if args.models else load_registry()
    server = ServerSettings.from_schema(
        argv=json.loads(args.server_argv) if args.server_argv else None,
        vllm=args.vllm,
        ready_timeout_s=args.ready_timeout,
        max_restarts=args.server_restarts,
        monitor_interval_s=args.server_monitor,
    )
    condition = Condition.parse(args.condition)
    preset, steps = apply_condition(registry.preset(args.preset), condition, args.steps)
    protocol = protocol_for(args, condition)
    job = ShardJob(
        corpus=args.corpus,
        preset=preset,
        condition=condition,
        games=shard_games,
        runs_dir=Path(args.runs_dir),
        games_dir=Path(args.games_dir),
        workers=args.workers,
        limits_by_runtime=limits_for(steps, args.wall_timeout, protocol.action_budget),
        protocol=protocol,
        base_seed=args.seed,
        server=server,
        log_dir=Path(args.log_dir) if args.log_dir else None,
        costs_path=Path(args.costs) if args.costs else None,
        shard=args.shard,
        sandbox=args.sandbox,
        apptainer_image=args.apptainer_image,
        native_clock_rate=condition_clock_rate(condition, args.native_clock_rate),
        lock_wait_s=args.lock_wait,
        min_free_mb=args.min_free_mb,
        cost_heartbeat_s=args.cost_heartbeat,
    )
    manifest = Path(args.manifest) if args.manifest else None
    return _run_job(args.command, lambda: run_shard(job, manifest))


def _run_job(command: str, run: Callable[[], int]) -> int:
    """Run a node job; the faults it reports itself become one clear line and an exit code."""
    try:
        return run()
    except (ShardBusy, InsufficientSpace) as exc:
        print(f"playsuite {command}: error: {exc}", file=sys.stderr)
        return 1
    except Terminated:
        print(
            f"playsuite {command}: terminated (SIGTERM); unfinished episodes are played on rerun",
            file=sys.stderr,
        )
        return 128 + signal.SIGTERM


def _sandbox_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        choices=("bwrap", "apptainer"),
        default="bwrap",
        help="game isolation backend (apptainer: clusters, with --apptainer-image)",
    )
    parser.add_argument("--apptainer-image", help="game sandbox image (containers/*.def)")
    parser.add_argument(
        "--native-clock-rate",
        type=float,
        default=schema_default("config", "play", "native_clock_rate"),
        help="native games: game seconds per wall second (play.native_clock_rate)",
    )


def _protocol_options(parser: argparse.ArgumentParser) -> None:
    """The GameWorld protocol options (playsuite.harness.protocol); defaults: the schema."""
    parser.add_argument(
        "--action-budget",
        type=step_count,
        default=schema_default("config", "play", "action_budget"),
        help="episodes of N agent steps with no game-time cap (play.action_budget)",
    )
    parser.add_argument(
        "--reset-on-fail",
        action=argparse.BooleanOptionalAction,
        default=schema_default("config", "play", "reset_on_fail"),
        help="relaunch the game after a game over and play on (play.reset_on_fail)",
    )
    parser.add_argument(
        "--realtime",
        action=argparse.BooleanOptionalAction,
        default=schema_default("config", "play", "realtime"),
        help="play each step's inference latency as game time (play.realtime)",
    )


def _fault_options(parser: argparse.ArgumentParser) -> None:
    """Options for faults of the job itself (docs/harness.md, "Faults"); defaults: the schema."""
    parser.add_argument(
        "--lock-wait",
        type=float,
        default=schema_default("config", "play", "lock_wait_s"),
        help="seconds to wait while another live job holds this shard (play.lock_wait_s)",
    )
    parser.add_argument(
        "--min-free-mb",
        type=float,
        default=schema_default("config", "play", "min_free_mb"),
        help="free space (MB) needed at start and before each video (play.min_free_mb)",
    )
    parser.add_argument(
        "--ready-timeout",
        type=float,
        default=schema_default("config", "play", "server_ready_timeout_s"),
        help="seconds the model server has to become ready (play.server_ready_timeout_s)",
    )
    parser.add_argument(
        "--server-restarts",
        type=int,
        default=schema_default("config", "play", "server_restarts"),
        help="restarts of a dead or hung model server before the job stops (play.server_restarts)",
    )
    parser.add_argument(
        "--server-monitor",
        type=float,
        default=schema_default("config", "play", "server_monitor_s"),
        help="seconds between checks of the model server (play.server_monitor_s)",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play one game with one preset into an episode directory")
    p.add_argument("--game", required=True, help="game id in the catalog")
    p.add_argument("--catalog", help="corpus table (default: config/corpora/local.yaml)")
    p.add_argument("--agent", required=True, help="preset name from config/models.yaml")
    p.add_argument(
        "--condition",
        default=DEFAULT_CONDITION,
        help="k{K}-hz{HZ}-{variant}[+{setting}={value}...]",
    )
    p.add_argument(
        "--steps", type=step_count, help="stop after N agent steps (default: paper caps)"
    )
    p.add_argument("--out", required=True, help="episode directory to write")
    p.add_argument("--corpus", default="local", help="corpus name recorded in meta.json")
    p.add_argument("--games-dir", default="results/games", help="where games are acquired")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--wall-timeout", type=float, default=3600.0, help="seconds per episode")
    p.add_argument("--vllm", default=DEFAULT_VLLM, help=f"vLLM command (default {DEFAULT_VLLM})")
    _sandbox_options(p)
    _protocol_options(p)
    _fault_options(p)
    p.set_defaults(func=_play)

    s = sub.add_parser("play-shard", help="play one shard of a corpus (a workflow job)")
    s.add_argument("--corpus", required=True)
    s.add_argument("--catalog", required=True, help="corpus table")
    s.add_argument("--preset", required=True)
    s.add_argument("--condition", required=True)
    s.add_argument("--shard", required=True, help="shard key recorded in cost records")
    s.add_argument("--games", required=True, help="comma-separated game ids of the shard")
    s.add_argument("--workers", type=int, default=8)
    s.add_argument(
        "--steps", type=step_count, help="stop after N agent steps (default: paper caps)"
    )
    s.add_argument("--runs-dir", required=True, help="results/runs/{corpus}/{preset}/{condition}")
    s.add_argument("--games-dir", default="results/games")
    s.add_argument(
        "--manifest", help="shard manifest to write when complete (none: one episode's job)"
    )
    s.add_argument("--models", help="model registry (default: config/models.yaml)")
    s.add_argument("--log-dir")
    s.add_argument("--costs", help="cost record path stem (one TSV per attempt)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--wall-timeout", type=float, default=3600.0)
    s.add_argument("--server-argv", help="JSON argv replacing `vllm serve` ({uds} is filled in)")
    s.add_argument("--vllm", default=DEFAULT_VLLM, help=f"vLLM command (default {DEFAULT_VLLM})")
    s.add_argument(
        "--cost-heartbeat",
        type=float,
        default=HEARTBEAT_S,
        help="seconds between updates of a running attempt's cost record",
    )
    _sandbox_options(s)
    _protocol_options(s)
    _fault_options(s)
    s.set_defaults(func=_play_shard)

    c = sub.add_parser(
        "conform", help="put corpus rows through the runtime contract (acquire, launch, ...)"
    )
    c.add_argument("games", nargs="+", help="game ids of the corpus table")
    c.add_argument("--catalog", help="corpus table (default: config/corpora/local.yaml)")
    c.add_argument("--games-dir", default="results/games", help="where games are acquired")
    c.add_argument("--out", help="write the verdicts as a conformance table (TSV) here")
    _sandbox_options(c)
    c.set_defaults(func=_conform)


def _conform(args: argparse.Namespace) -> int:
    """Acquire each game and check it; one line per game, the summary, exit 1 if any failed."""
    import tempfile

    from playsuite.harness.conformance import check_game
    from playsuite.records.conformance import read_table, summary, table_row, write_table
    from playsuite.runtimes.acquire import AcquisitionError, acquire
    from playsuite.runtimes.resources import WorkerResources

    catalog = _catalog(args.catalog)
    games = [find_game(catalog, game_id) for game_id in args.games]
    verdicts = []
    with (
        tempfile.TemporaryDirectory(prefix="conform-") as tmp,
        WorkerResources(
            Path(tmp) / "worker", sandbox=args.sandbox, apptainer_image=args.apptainer_image
        ) as worker,
    ):
        for game in games:
            try:
                files = acquire(game, args.games_dir).files
            except AcquisitionError as exc:
                verdicts.append(_acquire_failed(game, str(exc)))
            else:
                report = check_game(
                    game,
                    files,
                    Path(tmp) / game.id,
                    resources=worker,
                    sandbox=args.sandbox,
                    clock_rate=args.native_clock_rate,
                )
                verdicts.append(report.to_dict())
            row = table_row(verdicts[-1])
            print(f"{row['game']}\t{row['runtime']}\t{row['ok']}\t{row['reason']}")
    if args.out:
        write_table(args.out, verdicts)
        print(summary(read_table(args.out)))
    return 0 if all(v["ok"] for v in verdicts) else 1


def _acquire_failed(game: GameEntry, why: str) -> dict[str, object]:
    """A verdict for a row that could not even be acquired (every check not reached)."""
    from playsuite.harness.conformance import CHECKS

    checks = [{"name": name, "ok": None, "detail": "not reached"} for name in CHECKS]
    return {
        "game": game.id,
        "runtime": game.runtime,
        "ok": False,
        "failed_check": "acquire",
        "reason": why,
        "seconds": 0.0,
        "checks": checks,
    }
