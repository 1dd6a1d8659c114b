"""Model inference: the vLLM server lifecycle and an OpenAI-compatible client over a Unix socket.

* :mod:`.command` — ``vllm serve`` argv from a registry preset.
* :mod:`.server` — :class:`VLLMServer`: start, readiness, logs, restart on crash, stop.
* :mod:`.client` — :class:`InferenceClient`: timeouts, retries, bounded concurrency; a socket
  or an OpenAI-compatible HTTP endpoint with an API key.
* :mod:`.limits` — request limits shared by all workers of a play job on a hosted endpoint.
* :mod:`.messages` — message content helpers (image/video data URLs).
"""

from __future__ import annotations

from playsuite.exports import lazy_exports

# Exports are loaded on first use, so a process that needs one small module (the stand-in test
# server in playsuite.testing, say) stays on the standard library and starts fast.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "ChatResult",
            "InferenceAuthError",
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

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
