"""Command lines for model servers: ``vllm serve`` from a registry preset.

The preset's ``serve`` block (``config/models.yaml``) is the single description of how a model is
served; this module is the only place that turns it into flags. Flag names follow vLLM's
``vllm serve --help`` (``--uds`` serves on a Unix socket instead of a TCP port;
``--limit-mm-per-prompt`` and ``--media-io-kwargs`` take JSON; ``serve.tool_call_parser`` turns on
vLLM's parsing of tool calls, ``--enable-auto-tool-choice --tool-call-parser``: vLLM 0.32 refuses
any ``tool_choice`` without a parser).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

#: vLLM's video loader samples a fixed number of frames (32) unless told otherwise; -1 keeps every
#: frame the request sends, so a judge that sends a 1 fps video is judged at 1 fps.
VIDEO_MEDIA_IO_KWARGS: dict[str, Any] = {"video": {"num_frames": -1}}


def _json_flag(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def vllm_serve_argv(
    preset: Any,
    uds: str,
    *,
    vllm: str = "vllm",
    model: str | None = None,
    served_model_name: str | None = None,
    allowed_local_media_path: str | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The ``vllm serve`` argv for a :class:`~playsuite.registry.Preset` or ``JudgePreset``.

    ``model`` replaces the Hugging Face id (a local copy of the weights on an offline cluster);
    the preset's ``revision`` goes with its Hugging Face id only, not with such a copy. The
    served name defaults to the preset's name, which is what clients send as ``model``.
    ``extra`` is appended after the preset's own ``extra_args`` (later flags win in vLLM).
    """
    if not getattr(preset, "needs_server", False):
        raise ValueError(f"preset {preset.name!r} is {preset.kind!r}: it needs no model server")
    if not preset.hf_id and not model:
        raise ValueError(f"preset {preset.name!r} has no hf_id")
    serve: dict[str, Any] = preset.serve
    sampling: dict[str, Any] = preset.sampling or {}
    extra_args = [str(a) for a in serve.get("extra_args", [])] + [str(a) for a in extra]
    argv = [
        vllm,
        "serve",
        model or preset.hf_id,
        "--uds",
        str(uds),
        "--served-model-name",
        served_model_name or preset.name,
        "--tensor-parallel-size",
        str(max(1, int(serve.get("gpus", 1)))),  # gpus 0: one CPU replica
    ]
    revision = getattr(preset, "revision", None)
    if revision and not model:
        argv += ["--revision", str(revision)]
    if "max_model_len" in serve:
        argv += ["--max-model-len", str(int(serve["max_model_len"]))]
    if "gpu_memory_utilization" in serve:
        argv += ["--gpu-memory-utilization", f"{float(serve['gpu_memory_utilization']):g}"]
    if "max_num_seqs" in serve:
        argv += ["--max-num-seqs", str(int(serve["max_num_seqs"]))]
    if "max_num_batched_tokens" in serve:
        argv += ["--max-num-batched-tokens", str(int(serve["max_num_batched_tokens"]))]
    limits = serve.get("limit_mm_per_prompt")
    if limits:
        argv += ["--limit-mm-per-prompt", _json_flag(limits)]
        if limits.get("video", 0) > 0 and "--media-io-kwargs" not in extra_args:
            argv += ["--media-io-kwargs", _json_flag(VIDEO_MEDIA_IO_KWARGS)]
    if serve.get("tool_call_parser"):  # the tool interface with tool_choice auto needs both
        argv += ["--enable-auto-tool-choice", "--tool-call-parser", str(serve["tool_call_parser"])]
    if sampling.get("seed") is not None:
        argv += ["--seed", str(int(sampling["seed"]))]
    if allowed_local_media_path:
        argv += ["--allowed-local-media-path", str(allowed_local_media_path)]
    return argv + extra_args


def server_env(preset: Any, scratch: str) -> dict[str, str]:
    """The preset's ``serve.env`` with ``{scratch}`` replaced by the job's private folder (caches
    and temporary files of a CPU engine belong to the job, not to the user's home)."""
    env = (getattr(preset, "serve", None) or {}).get("env") or {}
    return {str(k): str(v).replace("{scratch}", scratch) for k, v in env.items()}


def fill_server_argv(
    argv: Sequence[str], *, uds: str | None = None, preset: str | None = None
) -> list[str]:
    """A configured server argv (``play.server_argv``, ``judge.server_argv``) with its
    placeholders filled: ``{uds}`` the socket path, ``{preset}`` the served preset's or judge's
    name. A placeholder whose value is not given is left for a later step (the workflow knows the
    preset, only the job knows its socket)."""
    out = [str(a) for a in argv]
    if preset is not None:
        out = [a.replace("{preset}", preset) for a in out]
    if uds is not None:
        out = [a.replace("{uds}", uds) for a in out]
    return out
