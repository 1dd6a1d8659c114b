"""JobServer: the one start/watch/stop of a job's model server (play and judge jobs)."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from playsuite.config import schema_default
from playsuite.inference.job_server import JobServer, ServerSettings
from playsuite.registry import load_registry
from playsuite.testing.standin import standin_argv

PRESET = SimpleNamespace(name="tiny-preset")


def _settings(**overrides: object) -> ServerSettings:
    argv = standin_argv("{uds}", model="{preset}")
    return ServerSettings.from_schema(argv=argv, ready_timeout_s=20.0, **overrides)


def test_defaults_come_from_the_config_schema() -> None:
    settings = ServerSettings.from_schema()
    assert settings.argv is None and settings.model is None
    assert settings.vllm == schema_default("config", "engine", "vllm")
    assert settings.ready_timeout_s == schema_default("config", "play", "server_ready_timeout_s")
    assert settings.max_restarts == schema_default("config", "play", "server_restarts")
    assert settings.monitor_interval_s == schema_default("config", "play", "server_monitor_s")
    with pytest.raises(TypeError, match="unknown server settings: readiness"):
        ServerSettings.from_schema(readiness=3)
    with pytest.raises(TypeError):
        ServerSettings()  # type: ignore[call-arg]  # no defaults outside the schema


def test_placeholders_are_filled_and_the_server_stops(sock_dir: Path) -> None:
    uds = sock_dir / "m.sock"
    job = JobServer(PRESET, uds, _settings(monitor_interval_s=None), sock_dir / "server.log")
    assert str(uds) in job.server.argv and "tiny-preset" in job.server.argv
    with job as started:
        assert started is job and job.server.healthy()
        assert "serving 'tiny-preset'" in (sock_dir / "server.log").read_text()
    assert not job.server.running() and not uds.exists()
    job.stop()  # idempotent


def test_the_model_record_comes_from_the_running_server(sock_dir: Path) -> None:
    """A configured command line loads what it chooses: no revision, no served id; the version
    is what the running server answers on ``GET /version``."""
    preset = dataclasses.replace(load_registry().preset("qwen3-vl-8b"), revision="abc123")
    settings = _settings(monitor_interval_s=None)
    with JobServer(preset, sock_dir / "m.sock", settings, sock_dir / "server.log") as job:
        assert job.model_record() == {
            "hf_id": "Qwen/Qwen3-VL-8B-Instruct",
            "revision": None,
            "served": None,
            "engine": "server_argv",
            "engine_version": "standin",
        }
    assert job.server.version() is None  # stopped: nothing answers


def test_the_model_record_of_vllm_serve_names_the_pinned_revision(
    sock_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    preset = dataclasses.replace(load_registry().preset("qwen3-vl-8b"), revision="abc123")
    settings = ServerSettings.from_schema(vllm=sys.executable, monitor_interval_s=None)
    job = JobServer(preset, sock_dir / "m.sock", settings, sock_dir / "server.log")
    assert job.server.argv[job.server.argv.index("--revision") + 1] == "abc123"
    monkeypatch.setattr(job.server, "version", lambda: "0.32.0")
    assert job.model_record() == {
        "hf_id": "Qwen/Qwen3-VL-8B-Instruct",
        "revision": "abc123",
        "served": "Qwen/Qwen3-VL-8B-Instruct",
        "engine": "vllm",
        "engine_version": "0.32.0",
    }
    local = dataclasses.replace(settings, model="/models/qwen3-vl-8b")
    job = JobServer(preset, sock_dir / "m.sock", local, sock_dir / "server.log")
    assert "--revision" not in job.server.argv
    monkeypatch.setattr(job.server, "version", lambda: "0.32.0")
    record = job.model_record()
    assert record["revision"] is None and record["served"] == "/models/qwen3-vl-8b"


def test_the_watcher_restarts_a_crash_then_reports_the_spent_budget(sock_dir: Path) -> None:
    settings = _settings(max_restarts=1, monitor_interval_s=0.1)
    with JobServer(PRESET, sock_dir / "m.sock", settings, sock_dir / "server.log") as job:
        first = job.server.pid
        assert first is not None
        os.killpg(first, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while job.server.restarts < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert job.server.restarts == 1 and job.error is None
        job.ensure_healthy()  # waits (on the server's lock) until the restart is ready
        second = job.server.pid
        assert second is not None and second != first
        os.killpg(second, signal.SIGKILL)
        while job.error is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert job.error is not None and job.error.startswith("model server gone:")
        assert "restart budget (1) spent" in job.error


def test_a_failed_start_leaves_nothing_running(sock_dir: Path) -> None:
    argv = standin_argv("{uds}", startup_delay_s=30.0)
    settings = ServerSettings.from_schema(argv=argv, ready_timeout_s=0.5)
    job = JobServer(PRESET, sock_dir / "m.sock", settings, sock_dir / "server.log")
    with pytest.raises(Exception, match="ready"), job:
        pass
    assert not job.server.running()
