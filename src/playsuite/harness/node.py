"""The node runner: one job plays one shard of games for one preset and condition.

Shape of a job (DESIGN.md §4): start one model server for the preset on this node (none for
baselines), run W worker processes that take games from a shared queue and share that server,
then stop it. Workers are processes, not threads: a game runtime that wedges or a native crash in
a codec takes down one worker, not the node, and video encoding runs on every core.

Resume: a game whose episode directory already holds a final episode (a readable ``meta.json``
whose status is the game's own, played with the settings this job asks for) is not played again.
The shard's manifest is written only when every game has a final episode. Everything else is
left to the next attempt and makes the job exit non-zero, so Snakemake or Slurm retries it: an
episode lost to an infrastructure failure (model server gone, worker killed, game not acquired)
leaves no ``meta.json``; one that ended by our fault (``model_error``, ``harness_error``) keeps
its evidence until it is replayed. Before an episode is played again, its old folder (not final,
unreadable, or played with other settings) is moved to ``.replaced/{game}`` beside it and the
reason is logged.

A game whose row carries the triage policy ``monitor`` (``options.triage.policy``, risk 3) plays
with extra logging: its process list and its own logs are kept (playsuite.harness.monitor).

Faults of the job itself: it holds a lock on its shard for its whole life, so a second job for the
same shard (after ``kill -9`` of snakemake and ``--unlock``) waits or fails naming the holder
(playsuite.harness.lock); SIGTERM and a worker's death remove the job's temporary folders, and
the next job on the machine removes those a ``kill -9`` left (playsuite.harness.scratch); the
attempt's cost record exists from its start (playsuite.harness.costs); a results folder short of
free space stops the job before anything is started.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import shutil
import signal
import socket
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.files import MB, require_free_space
from playsuite.harness.costs import HEARTBEAT_S, CostRecord
from playsuite.harness.episode import (
    EpisodeLimits,
    EpisodeSpec,
    InfrastructureError,
    episode_seed,
    episode_settings,
    run_episode,
    settings_changes,
)
from playsuite.harness.lock import ShardBusy, exclusive_lock, lock_path_for
from playsuite.harness.monitor import EpisodeMonitor, monitor_dir, needs_monitoring
from playsuite.harness.recorder import FREE_SPACE_SETTING, staging_leftovers
from playsuite.harness.scratch import owned_tempdir, sweep_stale_tempdirs
from playsuite.inference.command import fill_server_argv
from playsuite.inference.engine import DEFAULT_VLLM
from playsuite.processes import Terminated, die_with_parent, raise_on_sigterm, sigterm_raises
from playsuite.records.episode import EpisodeError, episode_finished, read_meta
from playsuite.records.manifest import EpisodeSummary, write_manifest
from playsuite.registry import Preset
from playsuite.runtimes.acquire import AcquisitionError, load_acquired
from playsuite.runtimes.base import is_final_status

#: Video frame rate per runtime: pygame games are recorded at the paper's 30 fps; browser and
#: native games at 10 fps of game time (screenshots are the expensive part there).
DEFAULT_VIDEO_FPS = {"pygame": 30.0, "browser": 10.0, "native": 10.0}
#: Seconds a worker gets to clean up after SIGTERM before it is killed.
WORKER_STOP_S = 10.0


@dataclass
class ServerSettings:
    """How the shard's model server is started. ``argv`` overrides the vLLM command line (the
    tests use the stand-in server); ``None`` builds ``vllm serve`` from the preset."""

    argv: list[str] | None = None
    vllm: str = DEFAULT_VLLM  # the engine command (config engine.vllm)
    model: str | None = None  # a local model directory replacing the preset's hf_id
    ready_timeout_s: float = 1800.0
    monitor_interval_s: float = 2.0
    max_restarts: int = 2


@dataclass
class ShardJob:
    corpus: str
    preset: Preset
    condition: Condition
    games: list[GameEntry]
    runs_dir: Path  # results/runs/{corpus}/{preset}/{condition}
    games_dir: Path  # results/games (acquired games)
    workers: int = 8
    limits_by_runtime: dict[str, EpisodeLimits] = field(default_factory=dict)
    video_fps: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_VIDEO_FPS))
    base_seed: int = 0
    server: ServerSettings = field(default_factory=ServerSettings)
    log_dir: Path | None = None
    costs_path: Path | None = None  # one TSV row per job attempt (docs/analysis.md)
    shard: str = ""
    live: bool = True  # rich progress view when stderr is a terminal
    single_episode_dir: Path | None = None  # `playsuite play --out DIR`: a one-game job
    sandbox: str = "bwrap"  # "bwrap" here; "apptainer" on clusters without user namespaces
    apptainer_image: str | None = None  # containers/game-sandbox.sif for the apptainer backend
    lock_wait_s: float = 0.0  # play.lock_wait_s: wait this long for a shard another job holds
    min_free_mb: float = 0.0  # play.min_free_mb: free space needed in runs_dir (0: unchecked)
    cost_heartbeat_s: float = HEARTBEAT_S  # how often a running attempt's cost record is updated

    def episode_dir(self, game_id: str) -> Path:
        if self.single_episode_dir is not None:
            return self.single_episode_dir
        return self.runs_dir / game_id

    def lock_path(self, manifest_path: Path | None) -> Path:
        """The shard's lock file: beside its manifest; for `playsuite play`, beside the episode."""
        if manifest_path is not None:
            return lock_path_for(manifest_path)
        if self.single_episode_dir is not None:
            out = self.single_episode_dir
            return out.parent / f".{out.name}.lock"
        return self.runs_dir / f".{self.shard or 'shard'}.lock"

    def fps_for(self, game: GameEntry) -> float:
        return self.video_fps.get(game.runtime, 10.0)

    def limits_for(self, game: GameEntry) -> EpisodeLimits:
        return self.limits_by_runtime.get(game.runtime, EpisodeLimits())

    def settings_for(self, game: GameEntry) -> dict[str, Any]:
        """The settings this job plays ``game`` with, as its ``meta.json`` would record them."""
        return episode_settings(
            corpus=self.corpus,
            game_id=game.id,
            preset=self.preset.name,
            condition=self.condition.name,
            seed=episode_seed(self.base_seed, self.corpus, game.id, self.condition.name),
            video_fps=self.fps_for(game),
            limits=self.limits_for(game),
        )


def summary_of(job: ShardJob, game_id: str, meta: dict[str, Any]) -> EpisodeSummary:
    return EpisodeSummary.from_meta(game_id, meta, job.episode_dir(game_id))


def _make_policy(job: ShardJob, seed: int, uds: str | None, clients: dict[str, Any]) -> Any:
    if job.preset.kind == "baseline":
        from playsuite.agents.baselines import make_baseline

        return make_baseline(job.preset.name, seed=seed)
    from playsuite.agents.served import ServedModelPolicy
    from playsuite.inference.client import InferenceClient, RetryPolicy

    if "client" not in clients:
        # Patient retries: the node runner restarts a crashed server within this window.
        retry = RetryPolicy(attempts=8, backoff_s=1.0, backoff_max_s=30.0)
        clients["client"] = InferenceClient.for_preset(
            job.preset, uds, retry=retry, max_concurrency=1
        )
    return ServedModelPolicy(job.preset, clients["client"], seed=seed)


def _readme_text(job: ShardJob, game: GameEntry) -> str | None:
    if not game.readme:
        return None
    path = job.games_dir / game.id / "files" / game.readme
    with contextlib.suppress(OSError):
        return path.read_text(encoding="utf-8", errors="replace")
    return None


class WorkerResources:
    """What one worker keeps across its games: a Chromium (browser games), an X display (native
    and OpenGL games) and a Mesa shader cache, each created on first need and closed at the end.

    Reusing them is what makes a game's launch cheap: a fresh browser context instead of a fresh
    browser, a window on a running Xvfb instead of a new server.
    """

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self._browser: Any = None
        self._display: Any = None

    def options_for(self, game: GameEntry, options: Any) -> Any:
        if game.runtime == "browser":
            if self._browser is None:
                from playsuite.runtimes.browser_runtime import WorkerBrowser

                self._browser = WorkerBrowser(
                    sandbox=options.sandbox,
                    image=options.extra.get("apptainer_image"),
                    scratch=self.scratch / "browser-sandbox",
                )
            options.extra["browser"] = self._browser
        if game.runtime == "native" or game.options.get("opengl"):
            if self._display is None or not self._display.is_alive():
                from playsuite.runtimes.xdisplay import VirtualDisplay

                self._display = VirtualDisplay().start()  # 1920x1080: any game window fits
            options.display = self._display.name
            options.extra["mesa_cache"] = str(self.scratch / "mesa-cache")
        return options

    def close(self) -> None:
        if self._browser is not None:
            with contextlib.suppress(Exception):
                self._browser.close()
        if self._display is not None:
            with contextlib.suppress(Exception):
                self._display.stop()
        self._browser = self._display = None


def _worker_main(
    worker: int, job: ShardJob, tasks: Any, events: Any, uds: str | None, scratch_root: Path
) -> None:  # runs in a child process
    die_with_parent()  # even a kill -9 of the runner takes its workers down
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    raise_on_sigterm()  # SIGTERM unwinds: the game is closed, the scratch folder removed
    with contextlib.suppress(Terminated):
        _worker_loop(worker, job, tasks, events, uds, scratch_root)


def _worker_loop(
    worker: int, job: ShardJob, tasks: Any, events: Any, uds: str | None, scratch_root: Path
) -> None:
    from playsuite.runtimes.base import RuntimeOptions
    from playsuite.runtimes.factory import make_runtime

    clients: dict[str, Any] = {}
    resources = WorkerResources(scratch_root)
    try:
        while True:
            game = tasks.get()
            if game is None:
                break
            events.put(("start", worker, game.id, None))
            fps = job.fps_for(game)
            workdir = scratch_root / game.id
            workdir.mkdir(parents=True, exist_ok=True)
            limits = job.limits_for(game)
            monitored = needs_monitoring(game.options)
            watch_dir = monitor_dir(job.log_dir or job.runs_dir / "logs", game.id)
            try:
                options = resources.options_for(
                    game,
                    RuntimeOptions(
                        workdir=workdir,
                        game_dir=job.games_dir / game.id / "files",
                        video_fps=fps,
                        sandbox=job.sandbox,
                        extra={"apptainer_image": job.apptainer_image}
                        if job.apptainer_image
                        else {},
                    ),
                )
                spec = EpisodeSpec(
                    corpus=job.corpus,
                    game=game,
                    preset=job.preset,
                    condition=job.condition,
                    out_dir=job.episode_dir(game.id),
                    runtime_options=options,
                    limits=limits,
                    base_seed=job.base_seed,
                    readme_text=_readme_text(job, game),
                    monitored=monitored,
                    monitor_dir=watch_dir if monitored else None,
                    min_free_bytes=int(job.min_free_mb * MB),
                )
                policy = _make_policy(job, spec.seed, uds, clients)
                with EpisodeMonitor(watch_dir, workdir) if monitored else contextlib.nullcontext():
                    meta = run_episode(
                        spec,
                        policy,
                        make_runtime,
                        on_step=lambda step, t, g=game.id: events.put(
                            ("step", worker, g, (step, t))
                        ),
                    )
                events.put(("done", worker, game.id, meta))
            except InfrastructureError as exc:
                events.put(("infra", worker, game.id, str(exc)))
            except Exception as exc:  # the worker itself failed: report it, keep the others going
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                events.put(("infra", worker, game.id, f"harness error: {detail}"))
                traceback.print_exc(file=sys.stderr)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
    finally:
        resources.close()
        for client in clients.values():
            client.close()
        shutil.rmtree(scratch_root, ignore_errors=True)
        events.put(("exit", worker, None, None))


class _Progress:
    """Live view of each worker (rich) when attached to a terminal; plain log lines otherwise."""

    def __init__(self, job: ShardJob, total: int) -> None:
        self.job = job
        self.total = total
        self.done = 0
        self.rows: dict[int, tuple[str, str, str]] = {}
        self._live: Any = None
        if job.live and sys.stderr.isatty():
            from rich.console import Console
            from rich.live import Live

            self._live = Live(self._table(), console=Console(stderr=True), refresh_per_second=4)
            self._live.start()

    def _table(self) -> Any:
        from rich.table import Table

        title = (
            f"{self.job.preset.name} · {self.job.condition.name} · {self.job.corpus} "
            f"{self.job.shard} — {self.done}/{self.total} episodes"
        )
        table = Table(title=title)
        for col in ("worker", "game", "step", "status"):
            table.add_column(col)
        for worker in sorted(self.rows):
            game, step, status = self.rows[worker]
            table.add_row(str(worker), game, step, status)
        return table

    def update(self, worker: int, game: str, step: str, status: str, log: bool = False) -> None:
        self.rows[worker] = (game, step, status)
        if self._live is not None:
            self._live.update(self._table())
        elif log:
            print(f"[worker {worker}] {game}: {status}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()


def _make_server(job: ShardJob, log_dir: Path, uds: str) -> Any:
    """The preset's model server on ``uds``, not yet started (so that a SIGTERM during its long
    start-up still finds it to stop)."""
    from playsuite.inference.server import VLLMServer

    settings = job.server
    kwargs = {
        "log_path": log_dir / f"server-{job.preset.name}-{socket.gethostname()}.log",
        "ready_timeout_s": settings.ready_timeout_s,
        "max_restarts": settings.max_restarts,
    }
    if settings.argv is not None:
        argv = fill_server_argv(settings.argv, uds=uds, preset=job.preset.name)
        return VLLMServer(argv, uds, **kwargs)
    return VLLMServer.for_preset(
        job.preset, uds, vllm=settings.vllm, model=settings.model, **kwargs
    )


def _monitor_server(server: Any, stop: threading.Event, interval: float, errors: list[str]) -> None:
    """Restart a crashed or hung server (bounded by the server's ``max_restarts``)."""
    while not stop.wait(interval):
        try:
            server.ensure_healthy()
        except Exception as exc:
            errors.append(f"model server gone: {exc}")
            return


def _stop_workers(procs: list[Any], timeout_s: float = WORKER_STOP_S) -> None:
    """SIGTERM the workers still running (they close their game and scratch folder), then kill
    whoever is left after ``timeout_s``."""
    running = [proc for proc in procs if proc.is_alive()]
    for proc in running:
        proc.terminate()
    deadline = time.monotonic() + timeout_s
    for proc in running:
        proc.join(timeout=max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=5)


REPLACED_DIR = ".replaced"


def _set_aside(out: Path) -> Path:
    """Move an episode folder that is to be played again to ``.replaced/{name}`` beside it.

    The replay then starts from an empty folder (no old video or trace can end up next to the
    new ``meta.json``), and the old folder stays for inspection until the next replay.
    """
    aside = out.parent / REPLACED_DIR / out.name
    if aside.exists():
        shutil.rmtree(aside)
    aside.parent.mkdir(parents=True, exist_ok=True)
    os.replace(out, aside)
    return aside


def _replay_reason(job: ShardJob, game: GameEntry, meta: dict[str, Any]) -> str | None:
    """Why a recorded episode must be played again by this job, or None to keep it."""
    status = str(meta.get("status"))
    if not is_final_status(status):
        return f"status {status!r} is not the game's own result ({meta.get('error') or 'no error'})"
    if changes := settings_changes(meta, job.settings_for(game)):
        return "it was played with other settings: " + "; ".join(changes)
    return None


def _finished_episode(job: ShardJob, game: GameEntry) -> dict[str, Any] | None:
    """The ``meta.json`` of the game's episode when this job keeps it; otherwise None, after
    setting aside whatever episode is there, with the reason (naming the file) in the log."""
    out = job.episode_dir(game.id)
    if not episode_finished(out):
        return None
    try:
        meta = read_meta(out)
    except EpisodeError as exc:
        reason = f"its meta.json cannot be read ({exc})"
    else:
        if (reason := _replay_reason(job, game, meta)) is None:
            return meta
    aside = _set_aside(out)
    print(f"episode {game.id} is played again: {reason}; old folder: {aside}", file=sys.stderr)
    return None


def _not_acquired(job: ShardJob, game: GameEntry) -> str | None:
    """Why ``game`` cannot be played on this node (not acquired), or None. Ours to fix, never the
    game's launch failure: the episode is left for the attempt after acquisition."""
    try:
        load_acquired(job.games_dir, game.id)
    except AcquisitionError as exc:
        return f"{exc}: run the acquire stage first"
    except ValueError as exc:  # a damaged acquired.json: acquiring again repairs it
        return f"game {game.id!r}: unreadable acquisition record: {exc}"
    return None


def run_shard(job: ShardJob, manifest_path: Path | None = None) -> int:
    """Play every game of the shard; write the manifest when all have final episodes.

    Returns the exit code: 1 when any episode is left for a rerun (not played, lost, or ended by
    a failure of ours), so the workflow retries the job; 0 once every episode is final.

    Raises :class:`~playsuite.harness.lock.ShardBusy` when another live job holds the shard,
    :class:`~playsuite.files.InsufficientSpace` when the results folder is short of space, and
    :class:`~playsuite.processes.Terminated` after cleaning up on SIGTERM.
    """
    require_free_space(job.runs_dir, int(job.min_free_mb * MB), FREE_SPACE_SETTING)
    sweep_stale_tempdirs()  # what killed jobs left on this machine
    status = "interrupted"
    cost = None
    try:
        with sigterm_raises():
            if job.costs_path is not None:
                cost = CostRecord(
                    job.costs_path,
                    {
                        "corpus": job.corpus,
                        "preset": job.preset.name,
                        "condition": job.condition.name,
                        "shard": job.shard,
                        "gpus": job.preset.gpus,
                    },
                    heartbeat_s=job.cost_heartbeat_s,
                ).start()
            with exclusive_lock(job.lock_path(manifest_path), job.lock_wait_s):
                code = _play_shard(job, manifest_path)
            status = "ok" if code == 0 else "failed"
            return code
    except ShardBusy:
        status = "busy"
        raise
    except Terminated:
        status = "terminated"
        raise
    finally:
        if cost is not None:
            cost.finish(status)


def _play_shard(job: ShardJob, manifest_path: Path | None) -> int:
    """:func:`run_shard` once the shard is this job's."""
    log_dir = job.log_dir or job.runs_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    summaries: dict[str, EpisodeSummary] = {}
    failures: dict[str, str] = {}
    todo: list[GameEntry] = []
    for game in job.games:
        if (meta := _finished_episode(job, game)) is not None:
            summaries[game.id] = summary_of(job, game.id, meta)
        elif missing := _not_acquired(job, game):
            failures[game.id] = missing
        else:
            todo.append(game)
            for leftover in staging_leftovers(job.episode_dir(game.id)):
                shutil.rmtree(leftover, ignore_errors=True)  # ours to remove: the shard is locked
    server = sock_dir = None
    uds: str | None = None
    stop_monitor = threading.Event()
    monitor_errors: list[str] = []
    progress = _Progress(job, len(job.games))
    progress.done = len(summaries)
    procs: list[Any] = []
    scratch: dict[int, Path] = {}
    tasks: Any = None
    try:
        if todo and job.preset.needs_server:
            sock_dir = owned_tempdir("model")  # under $TMPDIR: hidden from sandboxes
            uds = str(sock_dir / "model.sock")
            server = _make_server(job, log_dir, uds)
            server.start()
            threading.Thread(
                target=_monitor_server,
                args=(server, stop_monitor, job.server.monitor_interval_s, monitor_errors),
                daemon=True,
            ).start()
        ctx = mp.get_context("spawn")
        tasks = ctx.Queue()
        events: Any = ctx.Queue()
        for game in todo:
            tasks.put(game)
        n_workers = max(1, min(job.workers, len(todo))) if todo else 0
        for _ in range(n_workers):
            tasks.put(None)
        # The job owns its workers' scratch folders, so that it can remove the folder of a worker
        # that crashed, and a kill -9 of the job leaves folders named after a dead process.
        scratch = {w: owned_tempdir(f"w{w}") for w in range(n_workers)}
        procs = [
            ctx.Process(
                target=_worker_main, args=(w, job, tasks, events, uds, scratch[w]), daemon=True
            )
            for w in range(n_workers)
        ]
        for proc in procs:
            proc.start()
        current: dict[int, str] = {}
        exited: set[int] = set()
        while len(exited) < n_workers:
            if monitor_errors:  # the server is gone for good: waiting on it only burns the node
                for game_id in current.values():
                    failures[game_id] = "model server gone (restart budget spent)"
                break
            try:
                kind, worker, game_id, payload = events.get(timeout=1.0)
            except queue.Empty:
                for w, proc in enumerate(procs):
                    if w not in exited and not proc.is_alive():
                        exited.add(w)  # died without saying goodbye (killed, segfault)
                        shutil.rmtree(scratch[w], ignore_errors=True)
                        if w in current:
                            failures[current.pop(w)] = f"worker died (exit code {proc.exitcode})"
                continue
            if kind == "start":
                current[worker] = game_id
                progress.update(worker, game_id, "0", "launching", log=True)
            elif kind == "step":
                step, t_game = payload
                progress.update(worker, game_id, str(step + 1), f"t={t_game:.0f}s")
            elif kind == "done":
                current.pop(worker, None)
                if is_final_status(payload["status"]):
                    summaries[game_id] = summary_of(job, game_id, payload)
                    progress.done += 1
                else:  # recorded, but our failure: the next attempt plays it again
                    failures[game_id] = f"{payload['status']}: {payload.get('error')}"
                progress.update(
                    worker, game_id, str(payload.get("steps")), payload["status"], log=True
                )
            elif kind == "infra":
                current.pop(worker, None)
                failures[game_id] = payload
                progress.update(worker, game_id, "-", "infrastructure failure", log=True)
            elif kind == "exit":
                exited.add(worker)
        if not monitor_errors:  # workers stuck on a dead server are stopped below instead
            for proc in procs:
                proc.join(timeout=10)
        why = "model server gone" if monitor_errors else "every worker stopped early"
        for game in todo:
            if game.id not in summaries and game.id not in failures:
                failures[game.id] = f"not played: {why}"
    finally:
        progress.close()
        stop_monitor.set()
        _stop_workers(procs)
        if tasks is not None:
            tasks.cancel_join_thread()  # unplayed games left in the queue must not block exit
        if server is not None:
            server.stop()
        for folder in [*scratch.values(), *([sock_dir] if sock_dir else [])]:
            shutil.rmtree(folder, ignore_errors=True)
        for game_id, error in sorted(failures.items()):
            print(f"episode {game_id} left for a rerun: {error}", file=sys.stderr)
        for error in monitor_errors:
            print(error, file=sys.stderr)
    if failures:
        return 1
    if manifest_path is not None:
        write_manifest(manifest_path, list(summaries.values()))
    return 0
