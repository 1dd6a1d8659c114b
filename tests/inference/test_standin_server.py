"""The stand-in speaks vLLM's protocol: request checks, response shape, schema answers."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

import httpx
import jsonschema
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playsuite.inference import (
    VLLMServer,
    image_data_url,
    user_message,
    video_data_url,
)
from playsuite.judge.levels import progress_level
from playsuite.judge.schema import milestone_schema, validate_milestones
from playsuite.testing.standin import standin_argv
from playsuite.testing.standin_requests import RequestError, minimal_instance, png_size


@pytest.fixture(scope="module")
def default_server():
    """One stand-in with default options for the tests that only read from it."""
    directory = Path(tempfile.mkdtemp(prefix="psi-", dir="/tmp"))
    uds = str(directory / "m.sock")
    server = VLLMServer(standin_argv(uds), uds, ready_timeout_s=20, poll_interval_s=0.05)
    yield server.start()
    server.stop()
    shutil.rmtree(directory, ignore_errors=True)


def _http(server) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(uds=server.uds), base_url="http://x")


def _chat(http: httpx.Client, **body) -> httpx.Response:
    body.setdefault("model", "standin")
    body.setdefault("messages", [{"role": "user", "content": "play"}])
    return http.post("/v1/chat/completions", json=body)


def _png(width: int, height: int) -> bytes:
    import base64

    url = image_data_url(np.zeros((height, width, 3), np.uint8))
    return base64.b64decode(url.split(",", 1)[1])


def test_minimal_instance_of_milestone_schema_is_valid_and_level_zero():
    value = minimal_instance(milestone_schema())
    validate_milestones(value)
    assert value["milestones"] == [] and value["distinct_interactions"] == 0
    assert progress_level(value) == 0


def test_minimal_instance_follows_bounds_refs_and_choices():
    schema = {
        "type": "object",
        "required": ["a", "b", "c", "d", "e", "f"],
        "$defs": {"pos": {"type": "integer", "exclusiveMinimum": 2}},
        "properties": {
            "a": {"$ref": "#/$defs/pos"},
            "b": {"type": "number", "minimum": 0.5},
            "c": {"enum": ["first", "second"]},
            "d": {"type": "array", "minItems": 2, "items": {"type": "string", "minLength": 3}},
            "e": {"anyOf": [{"type": "boolean"}, {"type": "integer"}]},
            "f": {"type": ["null", "integer"], "maximum": -4},
        },
    }
    value = minimal_instance(schema)
    jsonschema.validate(value, schema)
    assert value == {"a": 3, "b": 0.5, "c": "first", "d": ["xxx", "xxx"], "e": False, "f": -4}
    with pytest.raises(RequestError, match="not local"):
        minimal_instance({"$ref": "http://example.org/s.json"})


def _schemas() -> st.SearchStrategy[dict]:
    """JSON Schemas of the kind structured outputs use: typed leaves, arrays, objects."""
    bound = st.integers(-50, 50)
    leaves = st.one_of(
        st.just({"type": "boolean"}),
        st.just({"type": "null"}),
        bound.map(lambda lo: {"type": "integer", "minimum": lo, "maximum": lo + 10}),
        bound.map(lambda lo: {"type": "integer", "exclusiveMinimum": lo}),
        bound.map(lambda hi: {"type": "number", "maximum": hi}),
        st.integers(0, 5).map(lambda n: {"type": "string", "minLength": n}),
        st.lists(st.text(max_size=5), min_size=1, max_size=3).map(lambda e: {"enum": e}),
    )

    def extend(children: st.SearchStrategy[dict]) -> st.SearchStrategy[dict]:
        arrays = st.tuples(children, st.integers(0, 3)).map(
            lambda t: {"type": "array", "items": t[0], "minItems": t[1]}
        )
        objects = st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), children).flatmap(
            lambda props: st.lists(
                st.sampled_from(sorted(props)) if props else st.nothing(), unique=True
            ).map(lambda req: {"type": "object", "properties": props, "required": req})
        )
        any_of = st.lists(children, min_size=1, max_size=3).map(lambda alts: {"anyOf": alts})
        return st.one_of(arrays, objects, any_of)

    return st.recursive(leaves, extend, max_leaves=12)


@settings(max_examples=50)
@given(_schemas())
def test_minimal_instance_is_valid_for_generated_schemas(schema):
    jsonschema.validate(minimal_instance(schema), schema)


def test_health_models_and_unknown_paths(standin):
    server = standin(model="qwen3-vl-8b")
    with _http(server) as http:
        assert http.get("/health").status_code == 200
        models = http.get("/v1/models").json()
        assert [m["id"] for m in models["data"]] == ["qwen3-vl-8b"]
        assert models["data"][0]["owned_by"] == "playsuite-standin"
        assert http.get("/v2/nothing").status_code == 404


def test_chat_answer_has_openai_shape_and_standard_format(default_server):
    server = default_server
    with _http(server) as http:
        reply = _chat(http, seed=5, max_tokens=512)
    assert reply.status_code == 200
    data = reply.json()
    assert data["object"] == "chat.completion" and data["id"].startswith("chatcmpl-")
    assert data["model"] == "standin"
    choice = data["choices"][0]
    assert choice["finish_reason"] == "stop" and choice["message"]["role"] == "assistant"
    usage = data["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    lines = choice["message"]["content"].splitlines()
    assert [line.split(":", 1)[0] for line in lines] == ["Observation", "Reasoning", "Action"]
    assert lines[2].split(":", 1)[1].strip()


def test_explorer_cycles_keys_and_clicks_the_centre(standin):
    server = standin(policy="explorer")
    message = user_message("play", images=[_png(40, 30)])
    with _http(server) as http:
        actions = [
            _chat(http, messages=[message])
            .json()["choices"][0]["message"]["content"]
            .rsplit("Action: ", 1)[1]
            for _ in range(5)
        ]
    assert actions == ["enter", "space", "hold:right:1.0", "hold:up:1.0", "click:20,15"]


def test_seeded_requests_are_reproducible(default_server):
    server = default_server
    with _http(server) as http:
        texts = {
            seed: _chat(http, seed=seed).json()["choices"][0]["message"]["content"]
            for seed in range(8)
        }
        again = _chat(http, seed=3).json()["choices"][0]["message"]["content"]
    assert again == texts[3]
    assert len(set(texts.values())) > 1


_ABSOLUTE = re.compile(r"(?i)\b(?:click|rightclick|move):\s*(\d+),\s*(\d+)")


def test_pointer_actions_stay_inside_the_png_the_request_carried(default_server):
    server = default_server
    message = user_message("play", images=[_png(40, 30)])
    assert png_size(_png(40, 30)) == (40, 30)
    points = []
    with _http(server) as http:
        for seed in range(60):
            text = _chat(http, messages=[message], seed=seed).json()["choices"][0]["message"]
            points += _ABSOLUTE.findall(text["content"].rsplit("Action:", 1)[1])
    assert points
    assert all(0 <= int(x) < 40 and 0 <= int(y) < 30 for x, y in points)


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ({"messages": []}, 400, "non-empty list"),
        ({"messages": [{"role": "robot", "content": "x"}]}, 400, "role"),
        ({"messages": [{"role": "user", "content": [{"type": "video"}]}]}, 400, "known 'type'"),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "image_url", "image_url": {"url": "data:image/png;base64,@@"}}
                        ],
                    }
                ]
            },
            400,
            "base64",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "image_url",
                                "image_url": {"url": "data:text/plain;base64,aGk="},
                            }
                        ],
                    }
                ]
            },
            400,
            "MIME",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "image_url", "image_url": {"url": "file:///etc/passwd"}}
                        ],
                    }
                ]
            },
            400,
            "allowed-local-media-path",
        ),
        ({"temperature": -1}, 400, "temperature"),
        ({"max_tokens": 0}, 400, "max_tokens"),
        ({"max_tokens": 10**7}, 400, "maximum context length"),
        ({"response_format": {"type": "json_schema", "json_schema": {"schema": {}}}}, 400, "name"),
        ({"stream": True}, 400, "streaming"),
        ({"model": "other"}, 404, "does not exist"),
    ],
)
def test_malformed_requests_are_refused_like_vllm(default_server, body, status, needle):
    server = default_server
    with _http(server) as http:
        reply = _chat(http, **body)
    assert reply.status_code == status
    error = reply.json()["error"]
    assert needle in error["message"] and error["code"] == status


def test_not_json_and_media_limits(standin):
    server = standin(limit_mm_per_prompt={"image": 2, "video": 1})
    with _http(server) as http:
        reply = http.post("/v1/chat/completions", content=b"{not json")
        assert reply.status_code == 400
        png = _png(8, 8)
        too_many = user_message("x", images=[png, png, png])
        reply = _chat(http, messages=[too_many])
        assert reply.status_code == 400 and "At most 2 image" in reply.json()["error"]["message"]
        assert _chat(http, messages=[user_message("x", images=[png, png])]).status_code == 200


def test_video_request_with_json_schema_gets_schema_valid_json(standin):
    server = standin(model="qwen3.5-9b")
    video = video_data_url(b"\x00\x00\x00\x18ftypmp42 not a real video body")
    body = {
        "model": "qwen3.5-9b",
        "messages": [user_message("judge this", videos=[video])],
        "temperature": 0,
        "seed": 41,
        "mm_processor_kwargs": {"fps": 1},  # vLLM-specific fields pass through
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "milestones", "schema": milestone_schema()},
        },
    }
    with _http(server) as http:
        reply = http.post("/v1/chat/completions", json=body)
    assert reply.status_code == 200
    validate_milestones(json.loads(reply.json()["choices"][0]["message"]["content"]))


def test_max_tokens_truncates_with_finish_reason_length(default_server):
    server = default_server
    with _http(server) as http:
        data = _chat(http, max_tokens=3).json()
    assert data["choices"][0]["finish_reason"] == "length"
    assert len(data["choices"][0]["message"]["content"]) <= 12
