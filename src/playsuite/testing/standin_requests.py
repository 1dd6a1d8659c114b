"""What the stand-in model server (:mod:`.standin_server`) checks before it answers: a chat request
validated the way vLLM's OpenAI server validates it (roles, content parts, media URLs and their
per-prompt limits, sampling ranges, the context length), and minimal instances of the JSON
schemas that structured-output requests ask for.

Standard library only, like the server, so that it starts in a fraction of a second.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import struct
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
