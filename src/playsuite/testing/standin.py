"""Command lines that start the stand-in model server (:mod:`.standin_server`), a test double.

They live beside the double so that nothing in the package proper can start it by accident; tests
and benchmarks build a stand-in argv here and hand it to :class:`~playsuite.inference.VLLMServer`
or to a config's ``server_argv`` exactly as they would a ``vllm serve`` command line.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _json_flag(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def standin_argv(
    uds: str,
    *,
    model: str = "standin",
    python: str | None = None,
    policy: str = "random",
    seed: int = 0,
    latency_s: float = 0.0,
    trickle_s: float = 0.0,
    startup_delay_s: float = 0.0,
    crash_after: int | None = None,
    stall_after: int | None = None,
    invalid_json_first: int = 0,
    ignore_sigterm: bool = False,
    limit_mm_per_prompt: dict[str, int] | None = None,
    answers: list[str] | None = None,
) -> list[str]:
    """The argv that starts the stand-in test server (see :mod:`.standin_server`)."""
    argv = [
        python or sys.executable,
        "-m",
        "playsuite.testing.standin_server",
        "--uds",
        str(uds),
        "--model",
        model,
        "--policy",
        policy,
        "--seed",
        str(seed),
        "--latency",
        f"{latency_s:g}",
    ]
    if trickle_s:
        argv += ["--trickle", f"{trickle_s:g}"]
    if startup_delay_s:
        argv += ["--startup-delay", f"{startup_delay_s:g}"]
    if crash_after is not None:
        argv += ["--crash-after", str(crash_after)]
    if stall_after is not None:
        argv += ["--stall-after", str(stall_after)]
    if invalid_json_first:
        argv += ["--invalid-json-first", str(invalid_json_first)]
    if ignore_sigterm:
        argv.append("--ignore-sigterm")
    if limit_mm_per_prompt is not None:
        argv += ["--limit-mm-per-prompt", _json_flag(limit_mm_per_prompt)]
    if answers:
        argv += ["--answers", json.dumps(answers)]  # ASCII: escapes survive any command line
    return argv


def standin_argv_for_preset(preset: Any, uds: str, **kwargs: Any) -> list[str]:
    """The stand-in serving under a preset's name with the preset's media limits."""
    limits = (preset.serve or {}).get("limit_mm_per_prompt")
    kwargs.setdefault("limit_mm_per_prompt", limits)
    return standin_argv(uds, model=preset.name, **kwargs)
