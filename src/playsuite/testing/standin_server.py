"""A stand-in for ``vllm serve``: an OpenAI-compatible HTTP server on a Unix socket, with no model.

This is a *test double* for the one boundary this project cannot cross on a machine without a GPU
or model weights: vLLM inference. It speaks the same protocol as ``vllm serve --uds PATH``
(``GET /health``, ``GET /v1/models``, ``POST /v1/chat/completions``, the same error shapes, the
same request checks that matter to us), so the server lifecycle, the client, the agents, the
judge and the harness run their real code against it. Its answers come from a baseline policy
(random or explorer actions in the standard Observation/Reasoning/Action format) or, for
``response_format`` ``json_schema`` requests, from a minimal instance of the requested schema. It
never looks at the images: nothing it says is a model's judgement.

It can also misbehave on purpose, to test recovery paths: refuse connections for a while
(``--startup-delay``: the socket is bound but not listening, as vLLM's is while the model loads),
answer slowly (``--latency``), exit abruptly (``--crash-after``), hang (``--stall-after``), ignore
SIGTERM (``--ignore-sigterm``), answer invalid JSON to the first schema requests
(``--invalid-json-first``), or give set texts to the first chat requests (``--answers``, a JSON
list: JSON escapes carry what no command line can, such as a lone surrogate ``\ud800``). It is
also the server behind ``benchmarks/inference_client.py``.

Standard library only at startup (the random baseline is imported in the background after the
socket listens), so it is ready in a fraction of a second::

    python -m playsuite.testing.standin_server --uds /tmp/m.sock --latency 0.2
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import http.server
import json
import os
import random
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Roles vLLM's chat endpoint accepts.
ROLES = frozenset({"system", "user", "assistant", "tool", "developer"})
#: Content part types vLLM knows; the stand-in fully checks text, image_url and video_url.
PART_TYPES = frozenset(
    {"text", "image_url", "video_url", "input_audio", "audio_url", "image_embeds", "refusal"}
)
#: Rough token costs used for ``usage`` (the stand-in has no tokenizer): 4 characters a token.
CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 256
VIDEO_TOKENS = 4096
#: Screen size assumed when a request's image is not a PNG (whose header gives it).
DEFAULT_SCREEN = (640, 480)


class RequestError(Exception):
    """A request vLLM would refuse: carries the HTTP status and vLLM's error type."""

    def __init__(self, message: str, status: int = 400, kind: str = "BadRequestError") -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


# --- schema instances -----------------------------------------------------------------------


def minimal_instance(schema: Any, root: Any = None, depth: int = 0) -> Any:
    """The smallest value valid under a JSON Schema (the subset structured outputs use).

    Booleans are false, numbers sit at their minimum, strings are as short as allowed, arrays
    hold as few items as allowed, objects hold their required properties, enums and ``anyOf``
    take their first choice, and local ``$ref`` pointers are followed.
    """
    root = schema if root is None else root
    if depth > 50:
        raise RequestError("json_schema nests too deeply (or recursively) to instantiate")
    if schema is True or schema == {}:
        return None
    if not isinstance(schema, dict):
        raise RequestError(f"json_schema node is not an object: {schema!r}")
    if "$ref" in schema:
        return minimal_instance(_resolve_ref(schema["$ref"], root), root, depth + 1)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        if not schema["enum"]:
            raise RequestError("json_schema has an empty enum")
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return minimal_instance(schema[key][0], root, depth + 1)
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(_resolve_ref(part["$ref"], root) if "$ref" in part else part)
        return minimal_instance(merged, root, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind is None:
        kind = "object" if "properties" in schema else "null"
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return _minimal_number(schema, integer=kind == "integer")
    if kind == "string":
        return "x" * int(schema.get("minLength", 0))
    if kind == "array":
        items = schema.get("items", {})
        return [minimal_instance(items, root, depth + 1) for _ in range(schema.get("minItems", 0))]
    if kind == "object":
        props = schema.get("properties", {})
        return {
            name: minimal_instance(props.get(name, {}), root, depth + 1)
            for name in schema.get("required", [])
        }
    if kind == "null":
        return None
    raise RequestError(f"json_schema type {kind!r} is not supported")


def _minimal_number(schema: dict[str, Any], integer: bool) -> int | float:
    low = schema.get("minimum")
    if "exclusiveMinimum" in schema:
        ex = schema["exclusiveMinimum"]
        low = (ex + 1 if integer else ex + 1e-6) if low is None else max(low, ex + 1e-6)
    if low is None:
        high = schema.get("maximum")
        low = 0 if high is None or high >= 0 else high
    if integer:
        return int(-(-low // 1))  # ceiling without importing math
    return float(low)


def _resolve_ref(ref: str, root: Any) -> Any:
    if not ref.startswith("#"):
        raise RequestError(f"json_schema $ref {ref!r} is not local")
    node = root
    for token in [t for t in ref[1:].split("/") if t]:
        token = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or token not in node:
            raise RequestError(f"json_schema $ref {ref!r} does not resolve")
        node = node[token]
    return node


# --- baseline answers -------------------------------------------------------------------------

#: Keys the explorer stand-in cycles through; movement keys are held, the others tapped.
_EXPLORER_KEYS = ("enter", "space", "right", "up", "left", "down", "z", "x", "a", "d", "w", "s")
_HELD = frozenset({"right", "up", "left", "down", "a", "d", "w", "s"})
_FALLBACK_KEYS = ("left", "right", "up", "down", "space", "enter", "z", "x", "a", "d", "w", "s")

_sampler_lock = threading.Lock()
_sampler: list[Callable[[int, int, tuple[int, int]], str] | None] = []


def _random_sampler() -> Callable[[int, int, tuple[int, int]], str] | None:
    """The agents' random baseline (imported on first use, off the startup path), if present."""
    with _sampler_lock:
        if not _sampler:
            try:
                from playsuite.agents.baselines import RandomPolicy

                _sampler.append(lambda seed, step, screen: RandomPolicy(seed).sample(step, screen))
            except Exception as exc:  # a broken or missing agents package: use the fallback
                sys.stderr.write(f"standin: random baseline unavailable ({exc!r}); fallback\n")
                _sampler.append(None)
        return _sampler[0]


def _fallback_random(seed: int, step: int, screen: tuple[int, int]) -> str:
    rng = random.Random(f"{seed}:{step}")
    width, height = screen
    draw = rng.random()
    if draw < 0.6:
        return rng.choice(_FALLBACK_KEYS)
    if draw < 0.9:
        return f"click:{rng.randrange(width)},{rng.randrange(height)}"
    return "wait"


def policy_text(policy: str, seed: int, step: int, screen: tuple[int, int]) -> str:
    """One answer in the standard format (Observation/Reasoning/Action, standard grammar).

    ``random`` is the agents' random baseline (:class:`playsuite.agents.baselines.RandomPolicy`)
    drawing step ``step`` with ``seed``. ``explorer`` is a stateless stand-in for the explorer
    baseline, which needs each episode's previous frames: it cycles through common game keys
    and clicks the screen centre every fifth step.
    """
    width, height = screen
    if policy == "explorer":
        if step % 5 == 4:
            action = f"click:{width // 2},{height // 2}"
        else:
            key = _EXPLORER_KEYS[step % len(_EXPLORER_KEYS)]
            action = f"hold:{key}:1.0" if key in _HELD else key
        why = "Cycle through the keys and clicks that usually start and move a game."
    else:
        action = (_random_sampler() or _fallback_random)(seed, step, screen)
        why = "Random baseline: the action is drawn uniformly, independent of the screen."
    return (
        f"Observation: a {width}x{height} game screen (the stand-in server does not look at it).\n"
        f"Reasoning: {why}\n"
        f"Action: {action}"
    )


# --- request checking -------------------------------------------------------------------------


@dataclass
class Limits:
    """What the served "model" accepts, mirroring the vLLM flags of the same names."""

    limit_mm_per_prompt: dict[str, int] = field(default_factory=lambda: {"image": 4, "video": 1})
    max_model_len: int = 32768
    allowed_local_media_path: str | None = None


def _check_media_url(url: Any, kind: str, limits: Limits) -> bytes | None:
    """Check an image/video URL as vLLM's media loader would; return data-URL bytes."""
    if not isinstance(url, str) or not url:
        raise RequestError(f"{kind}_url.url must be a non-empty string")
    if url.startswith("data:"):
        header, sep, payload = url[5:].partition(",")
        if not sep or not header.endswith(";base64"):
            raise RequestError(f"{kind} data URL must be 'data:<mime>;base64,<data>'")
        mime = header[: -len(";base64")]
        if not mime.startswith(f"{kind}/"):
            raise RequestError(f"{kind} data URL has MIME type {mime!r}, expected {kind}/*")
        try:
            raw = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            raise RequestError(f"{kind} data URL is not valid base64") from None
        if not raw:
            raise RequestError(f"{kind} data URL is empty")
        return raw
    if url.startswith("file://"):
        allowed = limits.allowed_local_media_path
        path = os.path.realpath(url[len("file://") :])
        if not allowed:
            raise RequestError("Cannot load local files without `--allowed-local-media-path`.")
        if os.path.commonpath([path, os.path.realpath(allowed)]) != os.path.realpath(allowed):
            raise RequestError(f"The file path {path} must be a subpath of {allowed}.")
        if not os.path.isfile(path):
            raise RequestError(f"{kind} file not found: {path}")
        return None
    if url.startswith(("http://", "https://")):
        raise RequestError("the stand-in server does not fetch remote media; send a data URL")
    raise RequestError(f"{kind} URL scheme not supported: {url[:40]!r}")


def png_size(raw: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG header, or None if ``raw`` is not a PNG."""
    if raw[:8] == b"\x89PNG\r\n\x1a\n" and raw[12:16] == b"IHDR" and len(raw) >= 24:
        return struct.unpack(">II", raw[16:24])
    return None


@dataclass
class ParsedRequest:
    body: dict[str, Any]
    prompt_chars: int
    media: dict[str, int]
    screen: tuple[int, int]
    digest: str


def check_chat_request(body: Any, model: str, limits: Limits) -> ParsedRequest:
    """Validate a chat-completions body the way vLLM's OpenAI server would, or raise."""
    if not isinstance(body, dict):
        raise RequestError("request body must be a JSON object")
    requested = body.get("model")
    if requested is not None and requested != model:
        raise RequestError(f"The model `{requested}` does not exist.", 404, "NotFoundError")
    if body.get("stream"):
        raise RequestError("the stand-in server does not implement streaming (stream=true)")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list")
    chars = 0
    media = {"image": 0, "video": 0}
    screen = DEFAULT_SCREEN
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise RequestError(f"messages[{i}] must be an object")
        role = msg.get("role")
        if role not in ROLES:
            raise RequestError(f"messages[{i}].role must be one of {sorted(ROLES)}, got {role!r}")
        content = msg.get("content")
        if content is None and role == "assistant":
            continue
        if isinstance(content, str):
            chars += len(content)
            continue
        if not isinstance(content, list):
            raise RequestError(f"messages[{i}].content must be a string or a list of parts")
        for j, part in enumerate(content):
            where = f"messages[{i}].content[{j}]"
            if not isinstance(part, dict) or part.get("type") not in PART_TYPES:
                raise RequestError(f"{where} must be an object with a known 'type'")
            kind = part["type"]
            if kind == "text":
                if not isinstance(part.get("text"), str):
                    raise RequestError(f"{where}.text must be a string")
                chars += len(part["text"])
            elif kind in ("image_url", "video_url"):
                media_kind = kind[: -len("_url")]
                inner = part.get(kind)
                if not isinstance(inner, dict):
                    raise RequestError(f"{where}.{kind} must be an object with a 'url'")
                raw = _check_media_url(inner.get("url"), media_kind, limits)
                media[media_kind] += 1
                if media_kind == "image" and raw is not None:
                    screen = png_size(raw) or screen
    for kind, count in media.items():
        limit = limits.limit_mm_per_prompt.get(kind)
        if limit is not None and count > limit:
            raise RequestError(
                f"At most {limit} {kind}(s) may be provided in one prompt, got {count}."
            )
    _check_sampling(body, limits)
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
    return ParsedRequest(body, chars, media, screen, digest)


def _check_sampling(body: dict[str, Any], limits: Limits) -> None:
    def number(name: str, low: float, high: float) -> None:
        value = body.get(name)
        if value is None:
            return
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        if not is_number or not low <= value <= high:
            raise RequestError(f"{name} must be a number in [{low}, {high}], got {value!r}")

    number("temperature", 0.0, 2.0)
    number("top_p", 1e-9, 1.0)
    for name in ("max_tokens", "max_completion_tokens", "n"):
        value = body.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise RequestError(f"{name} must be an integer, got {value!r}")
        if value is not None and value < 1:
            raise RequestError(f"{name} must be at least 1, got {value}")
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens")
    if max_tokens is not None and max_tokens > limits.max_model_len:
        raise RequestError(
            f"max_tokens ({max_tokens}) is larger than the model's maximum context length "
            f"({limits.max_model_len})."
        )
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RequestError(f"seed must be an integer, got {seed!r}")
    fmt = body.get("response_format")
    if fmt is not None:
        if not isinstance(fmt, dict) or fmt.get("type") not in (
            "text",
            "json_object",
            "json_schema",
            "structural_tag",
        ):
            raise RequestError("response_format.type must be text, json_object or json_schema")
        if fmt["type"] == "json_schema":
            spec = fmt.get("json_schema")
            if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
                raise RequestError("response_format.json_schema must be an object with a 'name'")
            if not isinstance(spec.get("schema"), dict):
                raise RequestError("response_format.json_schema.schema must be an object")


# --- the server -------------------------------------------------------------------------------


@dataclass
class Behaviour:
    """What the stand-in answers and how it misbehaves."""

    model: str = "standin"
    policy: str = "random"
    seed: int = 0
    latency_s: float = 0.0
    crash_after: int | None = None
    stall_after: int | None = None
    invalid_json_first: int = 0
    answers: list[str] = field(default_factory=list)  # texts of the first chat answers
    limits: Limits = field(default_factory=Limits)


class StandInState:
    """Counters shared by the handler threads."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.lock = threading.Lock()
        self.chat_requests = 0
        self.json_requests = 0
        self.stalled = threading.Event()
        self.started = int(time.time())

    def next_request(self) -> int:
        with self.lock:
            self.chat_requests += 1
            return self.chat_requests

    def next_json_request(self) -> int:
        with self.lock:
            self.json_requests += 1
            return self.json_requests


def _estimate_tokens(chars: int) -> int:
    return max(1, -(-chars // CHARS_PER_TOKEN))


def answer(state: StandInState, parsed: ParsedRequest, number: int, index: int) -> tuple[str, str]:
    """The answer text and its finish reason for one checked request."""
    body, beh = parsed.body, state.behaviour
    fmt = body.get("response_format") or {"type": "text"}
    if fmt["type"] == "json_schema":
        if state.next_json_request() <= beh.invalid_json_first:
            return '{"truncated": ', "length"
        text = json.dumps(minimal_instance(fmt["json_schema"]["schema"]))
    elif fmt["type"] == "json_object":
        text = "{}"
    elif number <= len(beh.answers):
        text = beh.answers[number - 1]
    else:
        seed = body.get("seed")
        if seed is not None:  # same seed + same prompt -> same answer, as with vLLM
            key = f"{beh.seed}:{seed}:{parsed.digest}".encode()
            policy_seed, step = int(hashlib.sha256(key).hexdigest()[:15], 16), index
        else:
            policy_seed, step = beh.seed, number - 1 + index
        text = policy_text(beh.policy, policy_seed, step, parsed.screen)
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens")
    if max_tokens is not None and _estimate_tokens(len(text)) > max_tokens:
        return text[: max_tokens * CHARS_PER_TOKEN], "length"
    return text, "stop"


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "playsuite-standin/1"
    server: _UnixHTTPServer

    def address_string(self) -> str:  # Unix sockets have no peer address
        return "uds"

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"standin: {self.address_string()} {format % args}\n")

    def _send_json(self, status: int, obj: Any) -> None:
        payload = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _send_error(self, exc: RequestError) -> None:
        error = {"message": str(exc), "type": exc.kind, "param": None, "code": exc.status}
        self._send_json(exc.status, {"error": error})

    def _stall_if_stalled(self) -> None:
        if self.server.state.stalled.is_set():
            threading.Event().wait()  # hang like a wedged engine; only a signal ends it

    def do_GET(self) -> None:
        self._stall_if_stalled()
        state = self.server.state
        if self.path == "/health":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/v1/models":
            beh = state.behaviour
            entry = {
                "id": beh.model,
                "object": "model",
                "created": state.started,
                "owned_by": "playsuite-standin",
                "root": beh.model,
                "parent": None,
                "max_model_len": beh.limits.max_model_len,
            }
            self._send_json(200, {"object": "list", "data": [entry]})
        elif self.path == "/version":
            self._send_json(200, {"version": "standin"})
        else:
            self._send_json(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        self._stall_if_stalled()
        length = self.headers.get("Content-Length")
        if length is None:
            self._send_error(RequestError("Content-Length required", 411, "LengthRequired"))
            return
        raw = self.rfile.read(int(length))
        if self.path != "/v1/chat/completions":
            self._send_json(404, {"detail": "Not Found"})
            return
        state, beh = self.server.state, self.server.state.behaviour
        number = state.next_request()
        if beh.crash_after is not None and number > beh.crash_after:
            sys.stderr.write(f"standin: simulated crash at request {number}\n")
            sys.stderr.flush()
            os._exit(70)
        if beh.stall_after is not None and number > beh.stall_after:
            sys.stderr.write(f"standin: simulated stall at request {number}\n")
            state.stalled.set()
            self._stall_if_stalled()
        try:
            try:
                body = json.loads(raw)
            except ValueError as exc:
                raise RequestError(f"request body is not valid JSON: {exc}") from None
            parsed = check_chat_request(body, beh.model, beh.limits)
            n = parsed.body.get("n") or 1
            answers = [answer(state, parsed, number, i) for i in range(n)]
        except RequestError as exc:
            self._send_error(exc)
            return
        except Exception as exc:  # a bug here must look like vLLM's 500, not a dropped connection
            sys.stderr.write(f"standin: internal error: {exc!r}\n")
            self._send_error(RequestError(repr(exc), 500, "InternalServerError"))
            return
        if beh.latency_s > 0:
            time.sleep(beh.latency_s)
        prompt_tokens = (
            _estimate_tokens(parsed.prompt_chars)
            + IMAGE_TOKENS * parsed.media["image"]
            + VIDEO_TOKENS * parsed.media["video"]
        )
        completion_tokens = sum(_estimate_tokens(len(text)) for text, _ in answers)
        choices = [
            {
                "index": i,
                "message": {
                    "role": "assistant",
                    "content": text,
                    "reasoning_content": None,
                    "tool_calls": [],
                },
                "logprobs": None,
                "finish_reason": reason,
                "stop_reason": None,
            }
            for i, (text, reason) in enumerate(answers)
        ]
        self._send_json(
            200,
            {
                "id": f"chatcmpl-{uuid.uuid4().hex}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": beh.model,
                "choices": choices,
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
                "prompt_logprobs": None,
            },
        )


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, path: str, state: StandInState) -> None:
        self.state = state
        super().__init__(path, _Handler, bind_and_activate=False)


def _remove_stale_socket(path: str) -> None:
    if not os.path.exists(path):
        return
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        os.unlink(path)  # nobody listens: a leftover from a killed server
    else:
        raise SystemExit(f"standin: another server is listening on {path}")
    finally:
        probe.close()


def serve(uds: str, behaviour: Behaviour, startup_delay_s: float = 0.0) -> None:
    """Serve on ``uds`` until SIGTERM/SIGINT (or until the process is killed).

    Like vLLM, the socket is bound first and listened on only once the "model" is loaded: during
    ``startup_delay_s`` the socket file exists but connections are refused.
    """
    _remove_stale_socket(uds)
    server = _UnixHTTPServer(uds, StandInState(behaviour))
    try:
        server.server_bind()
        if startup_delay_s > 0:
            sys.stderr.write(f"standin: loading (simulated, {startup_delay_s:g} s)\n")
            time.sleep(startup_delay_s)
        server.server_activate()
        if behaviour.policy == "random":  # load the baseline now, but off the startup path
            threading.Thread(target=_random_sampler, daemon=True).start()
        sys.stderr.write(f"standin: serving {behaviour.model!r} on unix:{uds}\n")
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        if os.path.exists(uds):
            os.unlink(uds)
        sys.stderr.write("standin: stopped\n")


def _text_list(value: str) -> list[str]:
    texts = json.loads(value)
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise argparse.ArgumentTypeError("--answers must be a JSON list of strings")
    return texts


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m playsuite.testing.standin_server",
        description="Test double for `vllm serve --uds`: OpenAI-compatible, no model.",
    )
    p.add_argument("--uds", required=True, help="Unix socket path to listen on")
    p.add_argument("--model", default="standin", help="served model name (default: standin)")
    p.add_argument("--policy", choices=("random", "explorer"), default="random")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--latency", type=float, default=0.0, help="seconds per chat answer")
    p.add_argument("--startup-delay", type=float, default=0.0, help="seconds before listening")
    p.add_argument("--crash-after", type=int, help="exit abruptly on chat request N+1")
    p.add_argument("--stall-after", type=int, help="hang on chat request N+1 and after")
    p.add_argument("--invalid-json-first", type=int, default=0, help="invalid schema answers")
    p.add_argument("--answers", type=_text_list, default=[], help="JSON list: first chat answers")
    p.add_argument("--ignore-sigterm", action="store_true", help="only SIGKILL stops it")
    p.add_argument("--limit-mm-per-prompt", type=json.loads, default={"image": 4, "video": 1})
    p.add_argument("--max-model-len", type=int, default=32768)
    p.add_argument("--allowed-local-media-path")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    limits = Limits(args.limit_mm_per_prompt, args.max_model_len, args.allowed_local_media_path)
    behaviour = Behaviour(
        model=args.model,
        policy=args.policy,
        seed=args.seed,
        latency_s=args.latency,
        crash_after=args.crash_after,
        stall_after=args.stall_after,
        invalid_json_first=args.invalid_json_first,
        answers=args.answers,
        limits=limits,
    )

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, signal.SIG_IGN if args.ignore_sigterm else stop)
    serve(args.uds, behaviour, args.startup_delay)
    return 0


if __name__ == "__main__":
    sys.exit(main())
