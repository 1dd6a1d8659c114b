"""A hosted preset (kind ``openai``) played against the real engine over loopback TCP.

One vLLM (its CPU build, the tiny Qwen2.5-VL) serves ``--host 127.0.0.1 --port P --api-key K``
for every test here, as a hosted API would: the preset names its URL, its model and the
environment variable with the key. A node job then plays a local pygame game through it exactly
as on a cluster, with no model server of its own: a wrong key ends the episode with the refusal
as its reason; the right key plays the configured number of steps and records each answer's
token usage and their sums; behind a proxy that answers 429 to the first requests (a test
helper, playsuite.testing.throttling_proxy), the job still succeeds and the retries are
recorded in the trace and in ``meta.json``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from playsuite.config import Condition, load_yaml
from playsuite.corpus import find_game, load_corpus
from playsuite.harness.cli import limits_for
from playsuite.harness.node import ShardJob, run_shard
from playsuite.inference.command import server_env, vllm_serve_argv
from playsuite.records.episode import read_meta, read_trace
from playsuite.records.manifest import read_manifest
from playsuite.registry import Endpoint, Preset
from playsuite.runtimes.acquire import acquire
from playsuite.testing.throttling_proxy import Refusal, ThrottlingProxy
from tests.engine.conftest import READY_TIMEOUT_S, REPO, model_of
from tests.runtimes.conftest import games_cache

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.games]

CORPUS = REPO / "config" / "corpora" / "local.yaml"
GAME = "funnyboat"
SERVED = "tiny-qwen2.5-vl"
KEY = "sk-playsuite-loopback-test"
KEY_ENV = "PLAYSUITE_TEST_HOSTED_KEY"
#: The steps a configured run plays (play.steps of config/config.yaml), as the baselines do.
STEPS = int(load_yaml(REPO / "config" / "config.yaml")["play"]["steps"])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def engine_url(
    registry, tiny_model, engine_vllm: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of the real engine serving the tiny preset with an API key."""
    root = tmp_path_factory.mktemp("tcp-engine")
    preset = registry.preset(SERVED)
    port = _free_port()
    argv = vllm_serve_argv(preset, "UNUSED", vllm=engine_vllm, model=model_of(preset, tiny_model))
    at = argv.index("--uds")
    argv[at : at + 2] = ["--host", "127.0.0.1", "--port", str(port), "--api-key", KEY]
    scratch = root / "scratch"
    scratch.mkdir()
    env = {**os.environ, **server_env(preset, str(scratch))}
    log = root / "engine.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            assert proc.poll() is None, log.read_text()[-3000:]
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(1)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def hosted(registry, base_url: str) -> Preset:
    """The tiny preset as a hosted one: the engine is somebody else's API at ``base_url``."""
    return dataclasses.replace(
        registry.preset(SERVED),
        kind="openai",
        serve={},
        tiny=None,
        hf_id=None,
        endpoint=Endpoint(
            base_url=f"{base_url}/v1",
            api_key_env=KEY_ENV,
            model=SERVED,  # vLLM serves it under the preset's name (--served-model-name)
            max_concurrency=2,
            requests_per_minute=None,
            timeout_s=300.0,
            attempts=4,
            backoff_s=0.2,
            backoff_max_s=5.0,
        ),
    )


def play(preset: Preset, root: Path, steps: int) -> tuple[int, Path]:
    """A node job of one game with ``preset``; its exit code and the episode folder."""
    game = find_game(load_corpus(CORPUS), GAME)
    acquire(game, games_cache(), base_dir=REPO)
    job = ShardJob(
        corpus="local",
        preset=preset,
        condition=Condition.parse("k0-hz0.33-base"),
        games=[game],
        runs_dir=root / "runs",
        games_dir=games_cache(),
        workers=1,
        limits_by_runtime=limits_for(steps, 900),
        log_dir=root / "logs",
        live=False,
    )
    code = run_shard(job, root / "manifest.tsv")
    assert not list((root / "logs").glob("server-*.log")), "a hosted preset starts no server"
    return code, root / "runs" / GAME


def no_key_on_disk(episode: Path) -> None:
    for file in episode.iterdir():
        if file.is_file():
            assert KEY not in file.read_text(errors="replace"), file


def test_a_wrong_key_is_the_episodes_failure_reason(
    engine_url: str, registry, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-not-the-key")
    code, episode = play(hosted(registry, engine_url), tmp_path, STEPS)
    assert code == 1  # our failure, not the game's: the workflow retries once the key is fixed
    meta = read_meta(episode)
    assert meta["status"] == "model_error" and meta["stop_reason"] == "model_error"
    assert meta["error"].startswith("API key refused at step 0: HTTP 401"), meta["error"]
    assert f"${KEY_ENV}" in meta["error"] and engine_url in meta["error"]
    assert meta["steps"] == 0
    assert meta["usage"] == {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
        "requests": 0,
        "retries": 0,
    }


def test_the_right_key_plays_the_game_and_records_token_usage(
    engine_url: str, registry, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    code, episode = play(hosted(registry, engine_url), tmp_path, STEPS)
    assert code == 0
    (row,) = read_manifest(tmp_path / "manifest.tsv")
    assert row.status == "ok" and row.steps == STEPS
    meta = read_meta(episode)
    assert meta["model"] == {
        "hf_id": None,
        "revision": None,
        "served": SERVED,
        "engine": "openai",
        "engine_version": None,
        "endpoint": f"{engine_url}/v1",
    }
    trace = read_trace(episode)
    assert len(trace) == STEPS
    usage = [step["info"]["usage"] for step in trace]
    assert all(u["prompt_tokens"] > 100 and u["completion_tokens"] >= 1 for u in usage)
    assert meta["usage"] == {
        "prompt_tokens": sum(u["prompt_tokens"] for u in usage),
        "completion_tokens": sum(u["completion_tokens"] for u in usage),
        "total_tokens": sum(u["total_tokens"] for u in usage),
        "requests": STEPS,
        "retries": 0,
    }
    assert (episode / "episode.mp4").stat().st_size > 0
    no_key_on_disk(episode)


def test_rate_limited_requests_are_retried_and_recorded(
    engine_url: str, registry, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    refusals = [Refusal(429, retry_after="1"), Refusal(429)]
    with ThrottlingProxy(engine_url, refusals) as proxy:
        code, episode = play(hosted(registry, proxy.url), tmp_path, 2)
        statuses = proxy.statuses()
    assert code == 0
    assert statuses == [429, 429, 200, 200]  # the proxy's refusals, then the engine's answers
    first, second = read_trace(episode)
    assert first["info"]["attempts"] == 3
    assert [r.split(":")[0] for r in first["info"]["retries"]] == ["HTTP 429", "HTTP 429"]
    assert second["info"]["attempts"] == 1 and "retries" not in second["info"]
    meta = read_meta(episode)
    assert meta["status"] == "ok" and meta["steps"] == 2
    assert meta["usage"]["requests"] == 2 and meta["usage"]["retries"] == 2
    assert meta["usage"]["prompt_tokens"] > 200
