"""A node job of a hosted preset (kind ``openai``) on real pygame games: no model server of its
own, the workers' requests go over HTTP to the endpoint (the throttling proxy, a test helper, in
front of the stand-in model server), within the job's shared limits. The real engine does the
same in tests/engine/test_engine_hosted.py."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from playsuite.config import ConfigError
from playsuite.harness.node import run_shard
from playsuite.inference import VLLMServer
from playsuite.records.episode import read_meta, read_trace
from playsuite.records.manifest import read_manifest
from playsuite.registry import Endpoint
from playsuite.testing.standin import standin_argv
from playsuite.testing.throttling_proxy import Refusal, ThrottlingProxy
from tests.harness.test_play import catalog, games_dir, shard_job  # noqa: F401  (fixtures)

KEY_ENV = "PLAYSUITE_TEST_HOSTED_KEY"
STEPS = 4


@pytest.fixture
def endpoint_server() -> Iterator[VLLMServer]:
    """The stand-in model server (on a socket the proxy forwards to)."""
    folder = Path(tempfile.mkdtemp(prefix="psh-", dir="/tmp"))
    uds = str(folder / "m.sock")
    server = VLLMServer(standin_argv(uds, model="remote-model"), uds, ready_timeout_s=30)
    try:
        yield server.start()
    finally:
        server.stop()


def hosted_job(tmp_path: Path, catalog: Path, games_dir: Path, base_url: str):  # noqa: F811
    job = shard_job(tmp_path, catalog, games_dir, "gpt-4.1-mini")
    endpoint = dataclasses.replace(
        job.preset.endpoint,
        base_url=base_url,
        api_key_env=KEY_ENV,
        model="remote-model",
        max_concurrency=1,  # the two workers take turns: one request in flight for the job
        backoff_s=0.05,
    )
    assert isinstance(endpoint, Endpoint)
    job.preset = dataclasses.replace(job.preset, endpoint=endpoint)
    job.games = [g for g in job.games if g.id != "crasher"]
    return job


@pytest.mark.slow
@pytest.mark.games
def test_a_hosted_preset_plays_with_no_server_and_records_retries_and_usage(
    tmp_path: Path,
    catalog: Path,  # noqa: F811
    games_dir: Path,  # noqa: F811
    endpoint_server: VLLMServer,
    monkeypatch,
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with ThrottlingProxy(f"unix:{endpoint_server.uds}", [Refusal(429, "0.2")]) as proxy:
        job = hosted_job(tmp_path, catalog, games_dir, f"{proxy.url}/v1")
        manifest = tmp_path / "runs" / "shards" / "s0000.tsv"
        assert job.preset.gpus == 0 and not job.preset.needs_server
        assert run_shard(job, manifest) == 0
        statuses = proxy.statuses()
    assert statuses == [429] + [200] * (2 * STEPS)
    assert not list((tmp_path / "runs" / "logs").glob("server-*.log"))  # no server started
    assert {row.game: row.status for row in read_manifest(manifest)} == {
        "probe-a": "ok",
        "probe-b": "ok",
    }
    retries = 0
    for game in ("probe-a", "probe-b"):
        episode = tmp_path / "runs" / game
        meta = read_meta(episode)
        assert meta["model"]["engine"] == "openai" and meta["model"]["served"] == "remote-model"
        assert meta["model"]["endpoint"] == f"{proxy.url}/v1"
        trace = read_trace(episode)
        assert meta["usage"]["requests"] == STEPS == len(trace)
        assert meta["usage"]["prompt_tokens"] == sum(
            s["info"]["usage"]["prompt_tokens"] for s in trace
        )
        retries += meta["usage"]["retries"]
        assert meta["usage"]["retries"] == sum(len(s["info"].get("retries", [])) for s in trace)
    assert retries == 1


@pytest.mark.slow
@pytest.mark.games
def test_an_unset_key_stops_the_job_before_any_game(
    tmp_path: Path,
    catalog: Path,  # noqa: F811
    games_dir: Path,  # noqa: F811
    monkeypatch,
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    job = hosted_job(tmp_path, catalog, games_dir, "http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match=f"{KEY_ENV} holding its API key is not set"):
        run_shard(job, tmp_path / "manifest.tsv")
    assert not list((tmp_path / "runs").glob("probe-*"))  # nothing was played
