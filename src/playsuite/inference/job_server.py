"""The model server of one job: start it, watch it, stop it — the same way for play and judge.

A play shard and a judge shard each start one server for their preset on a private socket and
share it among their workers or requests. Both start either the configured ``server_argv``
(``{uds}`` and ``{preset}`` filled in; the tests' stand-in server) or ``vllm serve`` built from the
preset, wait for readiness, and stop the process group at the end, also when the start-up itself
is interrupted. A play job also runs a watcher thread that restarts a crashed or hung server
within its restart budget and records when the budget is spent, so the job stops at once instead
of waiting on a server that will not come back.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, fields
from typing import Any

from playsuite.config import schema_default
from playsuite.inference.command import fill_server_argv
from playsuite.inference.server import VLLMServer
from playsuite.records.episode import ModelRecord


@dataclass(frozen=True)
class ServerSettings:
    """How a job starts its model server.

    No field has a default here: the config schema (``engine.vllm``, ``play.server_*``) holds
    them, and :meth:`from_schema` builds settings from it with explicit overrides.
    ``argv`` replaces the vLLM command line (``None``: ``vllm serve`` from the preset); ``model`` is
    a local model directory replacing the preset's ``hf_id``; ``monitor_interval_s`` is how often
    the watcher thread checks the server (``None``: no watcher; the caller recovers on demand).
    """

    argv: list[str] | None
    vllm: str
    model: str | None
    ready_timeout_s: float
    max_restarts: int
    monitor_interval_s: float | None

    @classmethod
    def from_schema(cls, **overrides: Any) -> ServerSettings:
        """Settings with the config schema's play-job defaults, ``overrides`` applied on top."""
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown server settings: {', '.join(sorted(unknown))}")
        values: dict[str, Any] = {
            "argv": None,
            "vllm": schema_default("config", "engine", "vllm"),
            "model": None,
            "ready_timeout_s": float(schema_default("config", "play", "server_ready_timeout_s")),
            "max_restarts": int(schema_default("config", "play", "server_restarts")),
            "monitor_interval_s": float(schema_default("config", "play", "server_monitor_s")),
        }
        return cls(**{**values, **overrides})


class JobServer:
    """A preset's server for one job; use as a context manager (``start`` … ``stop``).

    ``preset`` is a registry preset or judge (its name fills ``{preset}`` and names the served
    model). The server object exists before it starts, so a SIGTERM during a long start-up still
    finds the process to stop. :attr:`error` is set once the watcher gave up on the server.
    """

    def __init__(
        self,
        preset: Any,
        uds: str | os.PathLike[str],
        settings: ServerSettings,
        log_path: str | os.PathLike[str] | None,
    ) -> None:
        self.settings = settings
        self.preset = preset
        self.uds = os.fspath(uds)
        kwargs: dict[str, Any] = {
            "log_path": log_path,
            "ready_timeout_s": settings.ready_timeout_s,
            "max_restarts": settings.max_restarts,
        }
        if settings.argv is not None:
            argv = fill_server_argv(settings.argv, uds=self.uds, preset=preset.name)
            self.server = VLLMServer(argv, self.uds, **kwargs)
        else:
            self.server = VLLMServer.for_preset(
                preset, self.uds, vllm=settings.vllm, model=settings.model, **kwargs
            )
        self.error: str | None = None
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def start(self) -> JobServer:
        """Start the server, wait until it answers, then start the watcher (if configured)."""
        self.server.start()
        interval = self.settings.monitor_interval_s
        if interval is not None:
            self._watcher = threading.Thread(target=self._watch, args=(interval,), daemon=True)
            self._watcher.start()
        return self

    def _watch(self, interval: float) -> None:
        """Restart a crashed or hung server until its restart budget is spent."""
        while not self._stop.wait(interval):
            try:
                self.server.ensure_healthy()
            except Exception as exc:
                self.error = f"model server gone: {exc}"
                return

    def model_record(self) -> ModelRecord:
        """What this server serves, for each episode's ``meta.json`` (ask once it is ready).

        The preset's revision is recorded only where it was passed to vLLM: not for a local copy
        replacing ``hf_id``, nor for a configured command line, which loads what it chooses.
        """
        custom = self.settings.argv is not None
        local = self.settings.model
        return {
            "hf_id": self.preset.hf_id,
            "revision": None if custom or local else getattr(self.preset, "revision", None),
            "served": None if custom else (local or self.preset.hf_id),
            "engine": "server_argv" if custom else "vllm",
            "engine_version": self.server.version(),
        }

    def ensure_healthy(self) -> None:
        """Restart the server now if it crashed or hangs (a client's recovery hook)."""
        self.server.ensure_healthy()

    def stop_watching(self) -> None:
        """End the watcher thread (no more restarts); the server keeps running."""
        self._stop.set()

    def stop(self) -> None:
        """Stop the watcher and the server's process group; safe to call twice."""
        self.stop_watching()
        self.server.stop()

    def __enter__(self) -> JobServer:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
