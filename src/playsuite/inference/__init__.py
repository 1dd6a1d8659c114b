"""Model inference: the vLLM server lifecycle and an OpenAI-compatible client over a Unix socket.

* :mod:`.command` — ``vllm serve`` argv from a registry preset.
* :mod:`.server` — :class:`VLLMServer`: start, readiness, logs, restart on crash, stop.
* :mod:`.client` — :class:`InferenceClient`: timeouts, retries, bounded concurrency.
* :mod:`.messages` — message content helpers (image/video data URLs).
"""

from __future__ import annotations

import importlib
from typing import Any

# Exports are loaded on first use, so a process that needs one small module (the stand-in test
# server in playsuite.testing, say) stays on the standard library and starts fast.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "ChatResult",
            "InferenceClient",
            "InferenceError",
            "InferenceRequestError",
            "InferenceUnavailable",
            "InvalidJSONAnswer",
            "JSONResult",
            "RetryPolicy",
            "json_schema_format",
            "parse_json_answer",
        ),
        "client",
    ),
    **dict.fromkeys(
        (
            "fill_server_argv",
            "server_env",
            "vllm_serve_argv",
        ),
        "command",
    ),
    **dict.fromkeys(
        (
            "image_data_url",
            "image_part",
            "system_message",
            "text_part",
            "user_message",
            "video_data_url",
            "video_part",
        ),
        "messages",
    ),
    **dict.fromkeys(
        ("ServerCrashed", "ServerError", "ServerStartError", "VLLMServer", "stop_all_servers"),
        "server",
    ),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
