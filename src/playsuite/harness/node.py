"""The node runner: one job plays one shard of games for one preset and condition.

Shape of a job (DESIGN.md §4): start one model server for the preset on this node (none for
baselines, nor for a hosted preset, whose workers share the endpoint's request limits instead:
playsuite.inference.limits), run W worker processes that take games from a shared queue and
share that server, then stop it. Workers are processes, not threads: a game runtime that wedges
or a native crash in a codec takes down one worker, not the node, and video encoding runs on
every core. The job's settings are :class:`~playsuite.harness.job.ShardJob`; a worker's loop is
:mod:`playsuite.harness.worker`; the server is a :class:`~playsuite.inference.job_server.JobServer`.

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
(playsuite.locks); SIGTERM and a worker's death remove the job's temporary folders, and
the next job on the machine removes those a ``kill -9`` left (playsuite.harness.scratch); the
attempt's cost record exists from its start (playsuite.harness.costs); a results folder short of
free space stops the job before anything is started.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import shutil
import socket
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from playsuite.corpus import GameEntry
from playsuite.files import MB, require_free_space
from playsuite.harness.costs import CostRecord
from playsuite.harness.episode import settings_changes
from playsuite.harness.job import DEFAULT_VIDEO_FPS, ShardJob
from playsuite.harness.progress import Progress
from playsuite.harness.recorder import FREE_SPACE_SETTING, staging_leftovers
from playsuite.harness.scratch import owned_tempdir, sweep_stale_tempdirs
from playsuite.harness.worker import stop_workers, worker_main
from playsuite.inference.job_server import JobServer, ServerSettings
from playsuite.inference.limits import JobLimits
from playsuite.locks import ShardBusy, exclusive_lock
from playsuite.processes import Terminated, sigterm_raises
from playsuite.records.episode import EpisodeError, episode_finished, read_meta
from playsuite.records.manifest import EpisodeSummary, write_manifest
from playsuite.runtimes.acquire import AcquisitionError, load_acquired
from playsuite.runtimes.base import is_final_status

__all__ = ["DEFAULT_VIDEO_FPS", "ServerSettings", "ShardJob", "run_shard", "summary_of"]


def summary_of(job: ShardJob, game_id: str, meta: dict[str, Any]) -> EpisodeSummary:
    return EpisodeSummary.from_meta(game_id, meta, job.episode_dir(game_id))


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

    Raises :class:`~playsuite.locks.ShardBusy` when another live job holds the shard,
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


@dataclass
class _Outcome:
    """What the job knows about its games: final episodes, and why the others are left."""

    summaries: dict[str, EpisodeSummary] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)


def _sort_games(job: ShardJob, outcome: _Outcome) -> list[GameEntry]:
    """The games still to play; kept episodes and unacquired games go into ``outcome``."""
    todo: list[GameEntry] = []
    for game in job.games:
        if (meta := _finished_episode(job, game)) is not None:
            outcome.summaries[game.id] = summary_of(job, game.id, meta)
        elif missing := _not_acquired(job, game):
            outcome.failures[game.id] = missing
        else:
            todo.append(game)
            for leftover in staging_leftovers(job.episode_dir(game.id)):
                shutil.rmtree(leftover, ignore_errors=True)  # ours to remove: the shard is locked
    return todo


def _start_server(job: ShardJob, log_dir: Path, sock_dir: Path) -> JobServer:
    """The preset's model server on a socket in ``sock_dir`` (started, watched)."""
    log = log_dir / f"server-{job.preset.name}-{socket.gethostname()}.log"
    return JobServer(job.preset, sock_dir / "model.sock", job.server, log)


class _Workers:
    """The job's worker processes, their task queue and their scratch folders.

    The job owns its workers' scratch folders, so that it can remove the folder of a worker that
    crashed, and a kill -9 of the job leaves folders named after a dead process.
    """

    def __init__(self, job: ShardJob, todo: list[GameEntry], uds: str | None) -> None:
        ctx = mp.get_context("spawn")
        self.tasks: Any = ctx.Queue()
        self.events: Any = ctx.Queue()
        self.todo = todo
        for index, game in enumerate(todo):
            self.tasks.put((index, game))
        self.count = max(1, min(job.workers, len(todo))) if todo else 0
        # The game each worker holds, by index into ``todo`` (-1: none); see worker_main.
        self.claims: Any = ctx.Array("i", [-1] * self.count, lock=False)
        for _ in range(self.count):
            self.tasks.put(None)
        self.scratch = {w: owned_tempdir(f"w{w}") for w in range(self.count)}
        # A hosted endpoint's limits bound the job, not each worker: one budget for all. Held
        # here for the workers' lives: a spawned child rebuilds the semaphore from its name,
        # which disappears once the parent's object is collected.
        endpoint = job.preset.endpoint
        self.limits = JobLimits.for_endpoint(endpoint, ctx) if endpoint is not None else None
        self.procs = [
            ctx.Process(
                target=worker_main,
                args=(
                    w,
                    job,
                    self.tasks,
                    self.events,
                    uds,
                    self.scratch[w],
                    self.claims,
                    self.limits,
                ),
                daemon=True,
            )
            for w in range(self.count)
        ]
        for proc in self.procs:
            proc.start()

    def held_by(self, worker: int) -> str | None:
        """The game ``worker`` claimed and has not finished, even if its events were lost."""
        index = self.claims[worker]
        return self.todo[index].id if index >= 0 else None

    def close(self) -> None:
        stop_workers(self.procs)
        self.tasks.cancel_join_thread()  # unplayed games left in the queue must not block exit
        for folder in self.scratch.values():
            shutil.rmtree(folder, ignore_errors=True)


def _collect(
    job: ShardJob,
    workers: _Workers,
    server: JobServer | None,
    outcome: _Outcome,
    progress: Progress,
) -> None:
    """Follow the workers' events until every worker exited or the model server is gone."""
    current: dict[int, str] = {}
    exited: set[int] = set()
    while len(exited) < workers.count:
        if server is not None and server.error:  # gone for good: waiting only burns the node
            for game_id in current.values():
                outcome.failures[game_id] = "model server gone (restart budget spent)"
            return
        try:
            kind, worker, game_id, payload = workers.events.get(timeout=1.0)
        except queue.Empty:
            for w, proc in enumerate(workers.procs):
                if w not in exited and not proc.is_alive():
                    exited.add(w)  # died without saying goodbye (killed, segfault)
                    shutil.rmtree(workers.scratch[w], ignore_errors=True)
                    held = current.pop(w, None) or workers.held_by(w)
                    if held is not None and held not in outcome.summaries:
                        outcome.failures[held] = f"worker died (exit code {proc.exitcode})"
            continue
        if kind == "start":
            current[worker] = game_id
            progress.update(worker, game_id, "0", "launching", log=True)
        elif kind == "step":
            step, t_game = payload
            progress.step(worker, game_id, step + 1, t_game)
        elif kind == "done":
            current.pop(worker, None)
            if is_final_status(payload["status"]):
                outcome.summaries[game_id] = summary_of(job, game_id, payload)
                progress.done += 1
            else:  # recorded, but our failure: the next attempt plays it again
                outcome.failures[game_id] = f"{payload['status']}: {payload.get('error')}"
            progress.update(worker, game_id, str(payload.get("steps")), payload["status"], log=True)
        elif kind == "infra":
            current.pop(worker, None)
            outcome.failures[game_id] = payload
            progress.update(worker, game_id, "-", "infrastructure failure", log=True)
        elif kind == "exit":
            exited.add(worker)


def _play_shard(job: ShardJob, manifest_path: Path | None) -> int:
    """:func:`run_shard` once the shard is this job's."""
    log_dir = job.log_dir or job.runs_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    outcome = _Outcome()
    todo = _sort_games(job, outcome)
    server: JobServer | None = None
    sock_dir: Path | None = None
    workers: _Workers | None = None
    if todo and job.preset.endpoint is not None:
        job.preset.endpoint.api_key(job.preset.name)  # unset: one clear error, nothing played
    progress = Progress(job, len(job.games))
    progress.done = len(outcome.summaries)
    try:
        if todo and job.preset.needs_server:
            sock_dir = owned_tempdir("model")  # under $TMPDIR: hidden from sandboxes
            server = _start_server(job, log_dir, sock_dir)
            server.start()
            job = replace(job, served_model=server.model_record())
        workers = _Workers(job, todo, server.uds if server is not None else None)
        _collect(job, workers, server, outcome, progress)
        gone = server is not None and server.error is not None
        if not gone:  # workers stuck on a dead server are stopped below instead
            for proc in workers.procs:
                proc.join(timeout=10)
        why = "model server gone" if gone else "every worker stopped early"
        for game in todo:
            if game.id not in outcome.summaries and game.id not in outcome.failures:
                outcome.failures[game.id] = f"not played: {why}"
    finally:
        progress.close()
        if server is not None:
            server.stop_watching()  # no restart while the workers are being stopped
        if workers is not None:
            workers.close()
        if server is not None:
            server.stop()
        if sock_dir is not None:
            shutil.rmtree(sock_dir, ignore_errors=True)
        for game_id, error in sorted(outcome.failures.items()):
            print(f"episode {game_id} left for a rerun: {error}", file=sys.stderr)
        if server is not None and server.error:
            print(server.error, file=sys.stderr)
    if outcome.failures:
        return 1
    if manifest_path is not None:
        write_manifest(manifest_path, list(outcome.summaries.values()))
    return 0
