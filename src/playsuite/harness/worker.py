"""One worker process of a play job: take games from the queue, play each, report events.

Workers are processes, not threads: a game runtime that wedges or a native crash in a codec takes
down one worker, not the job. Each worker keeps its shared runtime resources (a Chromium, an X
display, a Mesa cache: :class:`~playsuite.runtimes.resources.WorkerResources`) and one model
client across its games, and reports ``(kind, worker, game, payload)`` events to the job:
``start``, ``step``, ``done`` (the episode's meta), ``infra`` (an infrastructure failure, the
episode left for a rerun) and ``exit``. Events travel through a queue's feeder thread, so a worker
killed outright can lose the last ones; the game a worker holds is therefore also written, before
it is touched, into the job's shared claims array, which the job reads when a worker dies.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from playsuite.corpus import GameEntry
from playsuite.files import MB
from playsuite.harness.episode import EpisodeSpec, InfrastructureError, run_episode
from playsuite.harness.job import ShardJob
from playsuite.harness.monitor import EpisodeMonitor, monitor_dir, needs_monitoring
from playsuite.inference.limits import JobLimits
from playsuite.processes import Terminated, die_with_parent, raise_on_sigterm
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.resources import WorkerResources

#: Seconds a worker gets to clean up after SIGTERM before it is killed.
WORKER_STOP_S = 10.0


def _make_policy(
    job: ShardJob,
    seed: int,
    uds: str | None,
    clients: dict[str, Any],
    limits: JobLimits | None = None,
) -> Any:
    """The episode's policy: a baseline, or a served model on this worker's one client (the
    job's server on ``uds``, or a hosted preset's endpoint within the job's shared ``limits``,
    playsuite.inference.limits.JobLimits)."""
    if job.preset.kind == "baseline":
        from playsuite.agents.baselines import make_baseline

        return make_baseline(job.preset.name, seed=seed)
    from playsuite.agents.served import ServedModelPolicy
    from playsuite.inference.client import InferenceClient, RetryPolicy

    if "client" not in clients:
        if job.preset.hosted:
            shared = {"slots": limits.slots, "pacer": limits.pacer} if limits is not None else {}
            clients["client"] = InferenceClient.for_endpoint(job.preset, **shared)
        else:
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


def worker_main(
    worker: int,
    job: ShardJob,
    tasks: Any,
    events: Any,
    uds: str | None,
    scratch_root: Path,
    claims: Any,
    limits: JobLimits | None = None,
) -> None:  # runs in a child process
    die_with_parent()  # even a kill -9 of the runner takes its workers down
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    raise_on_sigterm()  # SIGTERM unwinds: the game is closed, the scratch folder removed
    with contextlib.suppress(Terminated):
        _worker_loop(worker, job, tasks, events, uds, scratch_root, claims, limits)


def _episode_spec(
    job: ShardJob, game: GameEntry, workdir: Path, resources: WorkerResources
) -> EpisodeSpec:
    """The episode ``game`` is played as, on this worker's shared resources."""
    options = resources.options_for(
        game,
        RuntimeOptions(
            workdir=workdir,
            game_dir=job.games_dir / game.id / "files",
            video_fps=job.fps_for(game),
            sandbox=job.sandbox,
            apptainer_image=job.apptainer_image,
            clock_rate=job.native_clock_rate,
        ),
    )
    monitored = needs_monitoring(game.options)
    return EpisodeSpec(
        corpus=job.corpus,
        game=game,
        preset=job.preset,
        condition=job.condition,
        out_dir=job.episode_dir(game.id),
        runtime_options=options,
        limits=job.limits_for(game),
        protocol=job.protocol,
        base_seed=job.base_seed,
        readme_text=_readme_text(job, game),
        monitored=monitored,
        monitor_dir=_watch_dir(job, game) if monitored else None,
        min_free_bytes=int(job.min_free_mb * MB),
        served_model=job.served_model,
    )


def _watch_dir(job: ShardJob, game: GameEntry) -> Path:
    return monitor_dir(job.log_dir or job.runs_dir / "logs", game.id)


def _play_one(
    worker: int,
    job: ShardJob,
    game: GameEntry,
    events: Any,
    workdir: Path,
    resources: WorkerResources,
    policy_for: Any,
) -> None:
    """Play ``game`` and report how it ended; only an infrastructure failure is an ``infra``."""
    from playsuite.runtimes.factory import make_runtime

    try:
        spec = _episode_spec(job, game, workdir, resources)
        policy = policy_for(spec.seed)
        watch = EpisodeMonitor(_watch_dir(job, game), workdir) if spec.monitored else None
        with watch or contextlib.nullcontext():
            meta = run_episode(
                spec,
                policy,
                make_runtime,
                on_step=lambda step, t: events.put(("step", worker, game.id, (step, t))),
            )
        events.put(("done", worker, game.id, meta))
    except InfrastructureError as exc:
        events.put(("infra", worker, game.id, str(exc)))
    except Exception as exc:  # the worker itself failed: report it, keep the others going
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        events.put(("infra", worker, game.id, f"harness error: {detail}"))
        traceback.print_exc(file=sys.stderr)


def _worker_loop(
    worker: int,
    job: ShardJob,
    tasks: Any,
    events: Any,
    uds: str | None,
    scratch_root: Path,
    claims: Any,
    limits: JobLimits | None = None,
) -> None:
    """Play the queue's ``(index, game)`` tasks until its ``None``; ``claims[worker]`` holds the
    index of the game in hand (``-1`` between games), written synchronously to shared memory."""
    clients: dict[str, Any] = {}
    resources = WorkerResources(
        scratch_root, sandbox=job.sandbox, apptainer_image=job.apptainer_image
    )
    try:
        while (task := tasks.get()) is not None:
            index, game = task
            claims[worker] = index  # before anything of the game exists: a kill is attributed
            events.put(("start", worker, game.id, None))
            workdir = scratch_root / game.id
            workdir.mkdir(parents=True, exist_ok=True)
            try:
                _play_one(
                    worker,
                    job,
                    game,
                    events,
                    workdir,
                    resources,
                    lambda seed: _make_policy(job, seed, uds, clients, limits),
                )
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
            claims[worker] = -1
    finally:
        resources.close()
        for client in clients.values():
            client.close()
        shutil.rmtree(scratch_root, ignore_errors=True)
        events.put(("exit", worker, None, None))


def stop_workers(procs: list[Any], timeout_s: float = WORKER_STOP_S) -> None:
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
