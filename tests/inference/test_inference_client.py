"""The client against the stand-in: answers, errors, retries, recovery, concurrency, JSON."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from PIL import Image

from playsuite.inference import (
    InferenceClient,
    InferenceRequestError,
    InferenceUnavailable,
    InvalidJSONAnswer,
    RetryPolicy,
    ServerCrashed,
    image_data_url,
    user_message,
)
from playsuite.inference.messages import encode_frame
from playsuite.judge.schema import milestone_schema
from playsuite.registry import load_registry

FAST = RetryPolicy(attempts=3, backoff_s=0.01, backoff_max_s=0.05)


def _client(server, **kwargs) -> InferenceClient:
    kwargs.setdefault("retry", FAST)
    kwargs.setdefault("timeout_s", 10.0)
    return InferenceClient(server.uds, kwargs.pop("model", "standin"), **kwargs)


def test_chat_returns_text_usage_and_latency(standin):
    server = standin(latency_s=0.05)
    frame = np.full((48, 64, 3), 200, np.uint8)
    with _client(server) as client:
        assert client.health()
        assert client.models() == ["standin"]
        result = client.chat([user_message("play", images=[frame])], seed=1, max_tokens=256)
    assert result.text.startswith("Observation:")
    assert result.finish_reason == "stop" and not result.truncated
    assert result.usage["prompt_tokens"] >= 256  # one image costs IMAGE_TOKENS in the stand-in
    assert result.latency_s >= 0.05 and result.wall_s >= result.latency_s
    assert result.attempts == 1 and result.model == "standin"


def test_preset_sampling_defaults_and_overrides():
    preset = load_registry().preset("qwen3-vl-8b")
    client = InferenceClient.for_preset(preset, "/tmp/unused.sock")
    try:
        body = client.build_body([{"role": "user", "content": "x"}], temperature=0.0)
        assert body["model"] == "qwen3-vl-8b"
        assert body["temperature"] == 0.0
        assert body["max_tokens"] == preset.sampling["max_tokens"]
        assert body["seed"] == preset.sampling["seed"]
        with pytest.raises(TypeError, match="unknown sampling"):
            client.build_body([], top_k=3)
    finally:
        client.close()


def test_bad_request_is_not_retried(standin):
    server = standin()
    with _client(server, model="wrong") as client, pytest.raises(InferenceRequestError) as err:
        client.chat([{"role": "user", "content": "x"}])
    assert err.value.status == 404 and "does not exist" in err.value.message
    chats = server.log_tail(200).count("POST /v1/chat/completions")
    assert chats == 1


def test_no_server_exhausts_retries(sock_dir):
    client = InferenceClient(str(sock_dir / "none.sock"), "standin", retry=FAST)
    with client, pytest.raises(InferenceUnavailable, match="after 3 attempt"):
        client.chat([{"role": "user", "content": "x"}])


@pytest.mark.slow
def test_crash_is_recovered_by_restarting_the_server(standin):
    server = standin({"max_restarts": 2}, crash_after=2)
    with _client(server, recover=server.ensure_healthy) as client:
        results = [client.chat([{"role": "user", "content": "x"}]) for _ in range(4)]
    assert [r.attempts for r in results] == [1, 1, 2, 1]
    assert server.restarts == 1
    assert "simulated crash" in server.log_tail(200)


def test_spent_restart_budget_gives_up(standin):
    server = standin({"max_restarts": 1}, crash_after=0)
    client = _client(server, recover=server.ensure_healthy)
    with client, pytest.raises(InferenceUnavailable, match="restart budget") as err:
        client.chat([{"role": "user", "content": "x"}])
    assert isinstance(err.value.__cause__, ServerCrashed)
    assert server.restarts == 1 and not server.running()


@pytest.mark.slow
def test_stalled_server_times_out_and_is_restarted(standin):
    server = standin(
        {"health_timeout_s": 0.5, "hang_after_s": 1.0, "max_restarts": 1},
        stall_after=1,
        policy="explorer",
    )
    with _client(server, recover=server.ensure_healthy, timeout_s=3.0) as client:
        first = client.chat([{"role": "user", "content": "x"}])
        second = client.chat([{"role": "user", "content": "x"}])
    assert first.attempts == 1 and second.attempts == 2
    assert server.restarts == 1 and "hung" in server.log_tail(200)


def test_concurrency_is_bounded(standin):
    server = standin(latency_s=0.3)
    with _client(server, max_concurrency=2) as client:
        threads = [
            threading.Thread(target=client.chat, args=([{"role": "user", "content": "x"}],))
            for _ in range(6)
        ]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - started
    assert elapsed >= 3 * 0.3 * 0.95  # six requests through two slots: three waves at least


def test_chat_json_retries_invalid_answers(standin):
    server = standin(invalid_json_first=2)
    schema = milestone_schema()
    with _client(server) as client:
        ok = client.chat_json(
            [{"role": "user", "content": "judge"}], schema, temperature=0, seed=41
        )
        assert ok.json_attempts == 3 and ok.value["gameplay_happened"] is False
        assert ok.result.response["choices"][0]["finish_reason"] == "stop"
    server2 = standin(invalid_json_first=5)
    with _client(server2) as client, pytest.raises(InvalidJSONAnswer, match="after 2"):
        client.chat_json([{"role": "user", "content": "judge"}], schema, json_attempts=2)


def test_image_data_url_round_trips_frames_and_bytes():
    import base64
    import io

    frame = np.random.default_rng(0).integers(0, 255, (30, 50, 3), dtype=np.uint8)
    url = image_data_url(frame)
    assert url.startswith("data:image/png;base64,")
    decoded = np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    assert np.array_equal(decoded, frame)
    jpeg = encode_frame(frame, "jpeg")
    assert image_data_url(jpeg).startswith("data:image/jpeg;base64,")
    with pytest.raises(ValueError, match="not PNG"):
        image_data_url(b"GIF89a....")
    with pytest.raises(ValueError, match="uint8"):
        image_data_url(frame.astype(np.float32))
    with pytest.raises(ValueError, match="HxW"):
        image_data_url(np.zeros((4, 4, 2), np.uint8))


def test_json_answers_may_hold_raw_control_characters_in_strings() -> None:
    from playsuite.inference.client import parse_json_answer

    # what a random-weight model under xgrammar's JSON grammar wrote (tests/engine)
    assert parse_json_answer('{"on_screen": "a\x05b\tc"}') == {"on_screen": "a\x05b\tc"}
    assert parse_json_answer('```json\n{"a": 1}\n```') == {"a": 1}
    with pytest.raises(ValueError):
        parse_json_answer('{"a": 1')
