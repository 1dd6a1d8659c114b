"""A hosted preset's client: its endpoint and key from the registry, retries that honour
Retry-After and are reported, a refused key that is not retried, job-wide request limits, and the
episode's usage sums. Over real HTTP: the throttling proxy (a test helper) in front of the
stand-in server; tests/engine/test_engine_hosted.py does the same against the real engine."""

from __future__ import annotations

import dataclasses
import email.utils
import itertools
import multiprocessing as mp
import threading
import time
from pathlib import Path

import pytest

from playsuite.config import ConfigError
from playsuite.harness.episode import EpisodeOutcome
from playsuite.inference import InferenceAuthError, InferenceClient, RetryPolicy
from playsuite.inference.client import retry_after_s
from playsuite.inference.limits import JobLimits, RequestPacer
from playsuite.registry import Endpoint, load_registry, parse_registry
from playsuite.testing.throttling_proxy import Refusal, ThrottlingProxy

REPO = Path(__file__).resolve().parents[2]
FAST = RetryPolicy(attempts=4, backoff_s=0.01, backoff_max_s=2.0)
CHAT = [{"role": "user", "content": "play"}]


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_s("2") == 2.0
    assert retry_after_s(" 0.5 ") == 0.5
    assert retry_after_s("-3") == 0.0
    assert retry_after_s(None) is None and retry_after_s("soon") is None
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert retry_after_s(date, now=now) == pytest.approx(30.0)
    assert retry_after_s(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0


def test_the_servers_wait_replaces_the_backoff_up_to_the_longest() -> None:
    policy = RetryPolicy(attempts=5, backoff_s=1.0, backoff_max_s=10.0, jitter=0.0)
    assert policy.wait(3) == 4.0  # no Retry-After: exponential backoff
    assert policy.wait(3, retry_after=0.2) == 0.2  # the server's figure, not ours
    assert policy.wait(1, retry_after=3600) == 10.0  # capped


def _hosted_preset(base_url: str, key_env: str, **endpoint):
    preset = load_registry().preset("gpt-4.1-mini")
    fields = {**dataclasses.asdict(preset.endpoint), "base_url": base_url, "api_key_env": key_env}
    return dataclasses.replace(preset, endpoint=Endpoint(**{**fields, **endpoint}))


def test_registry_gives_the_endpoint_its_schema_defaults() -> None:
    preset = load_registry().preset("gpt-4.1-mini")
    assert preset.hosted and not preset.needs_server and preset.uses_model
    assert preset.gpus == 0 and preset.serve == {}
    endpoint = preset.endpoint
    assert endpoint.base_url == "https://api.openai.com/v1" and endpoint.model == "gpt-4.1-mini"
    assert endpoint.api_key_env == "OPENAI_API_KEY"
    assert (endpoint.attempts, endpoint.backoff_max_s) == (8, 60.0)  # from the schema
    bare = parse_registry(
        {
            "presets": {
                "h": {
                    "kind": "openai",
                    "family": "VLM",
                    "parser": "standard",
                    "template": "standard",
                    "endpoint": {"base_url": "http://x/v1/", "api_key_env": "K", "model": "m"},
                }
            },
            "judges": {},
        }
    )
    assert bare.preset("h").endpoint.base_url == "http://x/v1"
    assert bare.preset("h").endpoint.requests_per_minute is None
    assert bare.preset("h").endpoint.max_concurrency == 4


@pytest.mark.parametrize(
    ("preset", "message"),
    [
        ({"kind": "openai"}, "'endpoint' is a required property"),
        (
            {"kind": "vllm", "hf_id": "a/b", "params_b": 1, "endpoint": {}},
            "should not be valid",
        ),
        (
            {"kind": "openai", "endpoint": {"base_url": "x", "api_key_env": "K", "model": "m"}},
            "does not match",
        ),
        (
            {
                "kind": "openai",
                "endpoint": {"base_url": "https://x", "api_key": "sk-1", "model": "m"},
            },
            "api_key_env",
        ),
    ],
)
def test_schema_refuses_a_hosted_preset_without_a_proper_endpoint(preset, message) -> None:
    from playsuite.config import validate

    doc = {
        "presets": {"h": {"family": "VLM", "parser": "standard", "template": "standard", **preset}},
        "judges": {"j": {"kind": "local"}},
    }
    with pytest.raises(ConfigError, match=message):
        validate(doc, "models")


def test_an_unset_key_variable_is_a_clear_error(monkeypatch) -> None:
    preset = _hosted_preset("http://127.0.0.1:9/v1", "PLAYSUITE_TEST_UNSET_KEY")
    monkeypatch.delenv("PLAYSUITE_TEST_UNSET_KEY", raising=False)
    with pytest.raises(ConfigError, match="PLAYSUITE_TEST_UNSET_KEY holding its API key"):
        InferenceClient.for_endpoint(preset)


@pytest.mark.slow
def test_rate_limits_and_server_errors_are_retried_and_reported(standin, monkeypatch) -> None:
    server = standin()
    monkeypatch.setenv("PLAYSUITE_TEST_KEY", "sk-test")
    refusals = [Refusal(429, retry_after="0.4"), Refusal(503)]
    with ThrottlingProxy(f"unix:{server.uds}", refusals) as proxy:
        preset = _hosted_preset(f"{proxy.url}/v1", "PLAYSUITE_TEST_KEY", model="standin")
        with InferenceClient.for_endpoint(preset, retry=FAST) as client:
            assert client.model == "standin" and client.timeout_s == preset.endpoint.timeout_s
            result = client.chat(CHAT)
        assert proxy.statuses() == [429, 503, 200]
    assert result.attempts == 3 and result.text.startswith("Observation:")
    assert [r.split(":")[0] for r in result.retries] == ["HTTP 429", "HTTP 503"]
    assert "rate limit reached" in result.retries[0]
    assert result.wall_s >= 0.4  # Retry-After was waited out (the backoff alone is ~0.03 s)
    assert result.usage["prompt_tokens"] > 0 and result.usage["completion_tokens"] > 0


def test_a_refused_key_is_not_retried_and_names_its_variable(standin, monkeypatch) -> None:
    server = standin()
    monkeypatch.setenv("PLAYSUITE_TEST_KEY", "sk-wrong")
    with ThrottlingProxy(f"unix:{server.uds}", [Refusal(401)]) as proxy:
        preset = _hosted_preset(f"{proxy.url}/v1", "PLAYSUITE_TEST_KEY", model="standin")
        client = InferenceClient.for_endpoint(preset, retry=FAST)
        with client, pytest.raises(InferenceAuthError, match=r"HTTP 401") as caught:
            client.chat(CHAT)
        assert proxy.statuses() == [401]  # once: a wrong key stays wrong
    assert "$PLAYSUITE_TEST_KEY" in str(caught.value) and proxy.url in str(caught.value)
    assert "sk-wrong" not in str(caught.value)


def test_the_pacer_spaces_request_starts_across_threads() -> None:
    pacer = RequestPacer(requests_per_minute=600)  # one start per 0.1 s
    starts: list[float] = []
    lock = threading.Lock()

    def call() -> None:
        start = pacer.wait()
        assert time.monotonic() >= start  # it slept until its turn
        with lock:
            starts.append(start)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    starts.sort()
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert gaps == pytest.approx([0.1] * 3), gaps


def _paced(limits: JobLimits, out) -> None:
    for _ in range(2):
        with limits.slots:
            start = limits.pacer.wait()
            out.put((start, time.monotonic() >= start))


@pytest.mark.slow
def test_job_limits_are_shared_by_worker_processes(monkeypatch) -> None:
    """Two spawned processes (as a play job's workers are) draw on one pacer: their four
    request starts are 0.2 s apart in all, not per process."""
    monkeypatch.syspath_prepend(str(REPO))  # the children import this module by name
    ctx = mp.get_context("spawn")
    endpoint = _hosted_preset("http://x/v1", "K", requests_per_minute=300).endpoint
    limits = JobLimits.for_endpoint(endpoint, ctx)
    out = ctx.Queue()
    procs = [ctx.Process(target=_paced, args=(limits, out)) for _ in range(2)]
    for proc in procs:
        proc.start()
    booked = sorted(out.get(timeout=30) for _ in range(4))
    for proc in procs:
        proc.join(timeout=30)
    assert all(slept for _, slept in booked)  # each waited for its turn
    gaps = [b - a for (a, _), (b, _) in itertools.pairwise(booked)]
    # one schedule for both processes: no two starts closer than 0.2 s (a start later than its
    # slot, when a loaded machine woke a process late, keeps the spacing too)
    assert all(gap >= 0.2 - 1e-6 for gap in gaps), gaps


def test_episode_usage_sums_the_answers_and_their_retries() -> None:
    outcome = EpisodeOutcome()
    outcome.count_usage(
        {
            "usage": {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107},
            "attempts": 3,
        }
    )
    outcome.count_usage({"usage": {"prompt_tokens": 90, "completion_tokens": 5}, "attempts": 1})
    outcome.count_usage({"move": "baseline"})  # a policy that reports no usage adds nothing
    registry = load_registry()
    assert outcome.usage_record(registry.preset("gpt-4.1-mini")) == {
        "prompt_tokens": 190,
        "completion_tokens": 12,
        "total_tokens": 202,  # the second answer gave no total: its two parts count
        "requests": 2,
        "retries": 2,
    }
    assert outcome.usage_record(registry.preset("random")) is None
