"""The model server lifecycle and the client against the real vLLM server (CPU build).

One server of the tiny Qwen2-VL preset serves the whole module, started over a stale socket file
(vLLM removes none on exit, and a start on a leftover path fails with EADDRINUSE unless the
lifecycle clears it). The client tests share it; the lifecycle test, last, kills it with SIGKILL,
has it restarted, and stops it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from playsuite.config import Condition
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, run_episode
from playsuite.inference import (
    InferenceClient,
    InferenceRequestError,
    InferenceUnavailable,
    RetryPolicy,
    VLLMServer,
    user_message,
)
from playsuite.inference.deadline_http import DeadlineHTTP
from playsuite.processes import group_alive
from playsuite.registry import Preset
from playsuite.runtimes.acquire import acquire
from playsuite.runtimes.base import RunStatus, RuntimeOptions
from playsuite.runtimes.factory import make_runtime
from tests.engine.conftest import READY_TIMEOUT_S, REPO, model_of
from tests.runtimes.conftest import fixture_game

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PRESET = "tiny-qwen2-vl"


def frame(seed: int, size: tuple[int, int] = (320, 240)) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (size[1], size[0], 3), dtype=np.uint8)


@pytest.fixture(scope="module")
def preset(registry) -> Preset:
    return registry.preset(PRESET)


@pytest.fixture(scope="module")
def server(
    preset: Preset, tiny_model, engine_vllm: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[VLLMServer]:
    sock_dir = Path(tempfile.mkdtemp(prefix="pse-", dir="/tmp"))
    uds = str(sock_dir / "model.sock")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(uds)  # a socket file nobody listens on: what a killed vLLM leaves behind
    stale.close()
    assert os.path.exists(uds)
    srv = VLLMServer.for_preset(
        preset,
        uds,
        vllm=engine_vllm,
        model=model_of(preset, tiny_model),
        log_path=tmp_path_factory.mktemp("engine-server") / "server.log",
        ready_timeout_s=READY_TIMEOUT_S,
        max_restarts=1,
    )
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(sock_dir, ignore_errors=True)


@pytest.fixture
def client(server: VLLMServer, preset: Preset) -> Iterator[InferenceClient]:
    with InferenceClient.for_preset(
        preset, server.uds, max_concurrency=2, retry=RetryPolicy(attempts=2, backoff_s=0.1)
    ) as c:
        c.recover = server.ensure_healthy
        yield c


def test_started_over_a_stale_socket_and_serves_the_preset_name(server: VLLMServer, client):
    assert server.starts == 1 and server.healthy()
    assert client.models() == [PRESET]
    assert "--uds" in server.argv and server.argv[server.argv.index("--uds") + 1] == server.uds


def test_concurrent_requests_with_images(client: InferenceClient) -> None:
    messages = [[user_message(f"step {i}: what next?", [frame(i)])] for i in range(4)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda m: client.chat(m, max_tokens=16), messages))
    for result in results:
        assert result.model == PRESET and isinstance(result.text, str)
        assert result.usage["completion_tokens"] >= 1 and result.usage["prompt_tokens"] > 8
        assert result.attempts == 1


def test_a_timeout_is_a_typed_failure_and_the_server_keeps_serving(
    server: VLLMServer, preset: Preset, client: InferenceClient
) -> None:
    # One attempt and no recovery: the typed failure of a single timed-out request. ignore_eos
    # (a vLLM sampling option) makes the request really ask for 4,000 tokens; the timeout is a
    # deadline for the whole request, which the server must then abort (docs/inference.md,
    # "Deadlines").
    generated_before = engine_counts(server)["generated"]
    started = time.monotonic()
    with InferenceClient.for_preset(preset, server.uds, retry=RetryPolicy(attempts=1)) as once:
        try:
            answer = once.chat(
                [user_message("talk", [frame(9)])],
                max_tokens=4000,
                extra_body={"ignore_eos": True},
                timeout_s=0.05,
            )
        except InferenceUnavailable as exc:
            assert "timed out" in str(exc)
        else:
            pytest.fail(
                f"answered inside a 0.05 s timeout: finish {answer.finish_reason}, usage "
                f"{answer.usage}, latency {answer.latency_s:.3f} s, attempts {answer.attempts}"
            )
    assert time.monotonic() - started < 60
    # vLLM saw the connection close and aborted the request: nothing runs, no token is being
    # generated, and far fewer than the 4,000 asked for were.
    counts = settled_engine_counts(server)
    assert counts["running"] == 0, counts
    assert counts["generated"] - generated_before < 4000, (generated_before, counts)
    assert client.chat([user_message("again")], max_tokens=4).usage["completion_tokens"] >= 1


def engine_counts(server: VLLMServer) -> dict[str, float]:
    """The engine's Prometheus counters this test needs: requests running now, and generation
    tokens produced since the server started."""
    with DeadlineHTTP(uds=server.uds) as http:
        text = http.get("/metrics", timeout_s=10).text
    counts = {"running": 0.0, "generated": 0.0}
    for line in text.splitlines():
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name == "vllm:num_requests_running":
            counts["running"] += float(line.rsplit(" ", 1)[1])
        elif name == "vllm:generation_tokens_total":
            counts["generated"] += float(line.rsplit(" ", 1)[1])
    return counts


def settled_engine_counts(server: VLLMServer, within_s: float = 30.0) -> dict[str, float]:
    """The counts once two reads a second apart agree and nothing runs (an aborted request
    leaves the engine's queue at its next step), or the last read after ``within_s``."""
    deadline = time.monotonic() + within_s
    last = engine_counts(server)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = engine_counts(server)
        if now == last and now["running"] == 0:
            return now
        last = now
    return last


def test_a_refused_request_is_a_request_error_not_a_retry(client: InferenceClient) -> None:
    too_many = user_message("five frames", [frame(i) for i in range(5)])  # the preset allows 4
    with pytest.raises(InferenceRequestError) as err:
        client.chat([too_many], max_tokens=4)
    assert err.value.status == 400 and "image" in err.value.message.lower()


def test_a_refused_step_ends_a_real_episode_as_model_error(
    server: VLLMServer, preset: Preset, tmp_path: Path
) -> None:
    """A preset that sends every history frame (k=4) asks for five images on its fifth step; the
    server allows four, so that step is refused: the episode records ``model_error`` with its
    first four steps (evidence for the user; a failure of ours, so a rerun plays it again)."""
    from playsuite.agents.served import ServedModelPolicy

    greedy = dataclasses.replace(preset, history_frames=True)
    game = fixture_game("probe_game")
    acquired = acquire(game, tmp_path / "games", base_dir=REPO)
    spec = EpisodeSpec(
        corpus="test",
        game=game,
        preset=greedy,
        condition=Condition.parse("k4-hz3-base"),
        out_dir=tmp_path / "episode",
        runtime_options=RuntimeOptions(workdir=tmp_path / "work", game_dir=acquired.files),
        limits=EpisodeLimits(max_steps=8, wall_timeout_s=600),
    )
    (tmp_path / "work").mkdir()
    with InferenceClient.for_preset(greedy, server.uds) as client:
        meta = run_episode(spec, ServedModelPolicy(greedy, client, seed=spec.seed), make_runtime)
    assert meta["status"] == "model_error", meta
    assert not RunStatus(meta["status"]).final
    assert meta["steps"] == 4 and "HTTP 400" in meta["error"]
    assert (tmp_path / "episode" / "meta.json").exists()
    assert (tmp_path / "episode" / "episode.mp4").stat().st_size > 0


def test_lifecycle_killed_server_is_restarted_then_stopped_without_leftovers(
    server: VLLMServer, client: InferenceClient
) -> None:
    """Last in the module: it ends the shared server."""
    first_pid = server.pid
    assert first_pid is not None
    os.kill(first_pid, signal.SIGKILL)  # the API server dies; its engine helpers follow or not
    deadline = time.monotonic() + 30
    while server.running() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not server.running()
    # the next request fails to connect, asks the lifecycle to recover, and is answered
    answer = client.chat([user_message("after the crash")], max_tokens=4)
    state = (answer.attempts, server.restarts, server.starts)
    assert state == (2, 1, 2), f"{state}\n{server.log_tail(60)}"
    assert server.pid != first_pid and server.healthy(), server.log_tail(60)
    assert not group_alive(first_pid), "the killed server's helpers outlived it"
    pid = server.pid
    assert pid is not None
    server.stop()
    assert not group_alive(pid), "a process of the stopped server is still running"
    assert not os.path.exists(server.uds), "the socket file was left behind"
