"""``playsuite serve``: run (or print) the model server of a preset, outside any workflow job.

For a person on a GPU node who wants to see exactly what a job would run, try a preset's server
by hand, or give a notebook a model to talk to; and, with ``--standin``, the same thing without
a GPU (the stand-in test double under the preset's name).
"""

from __future__ import annotations

import argparse
import shlex
import signal
import threading


def _preset(name: str):
    from playsuite.config import ConfigError
    from playsuite.registry import load_registry

    registry = load_registry()
    if name in registry.presets:
        return registry.preset(name)
    if name in registry.judges:
        return registry.judge(name)
    known = ", ".join(sorted([*registry.presets, *registry.judges]))
    raise ConfigError(f"unknown preset or judge {name!r}; known: {known}")


def _serve(args: argparse.Namespace) -> int:
    from playsuite.inference.command import standin_argv_for_preset, vllm_serve_argv
    from playsuite.inference.server import VLLMServer

    preset = _preset(args.preset)
    if args.standin:
        argv = standin_argv_for_preset(preset, args.uds, latency_s=args.standin_latency)
    else:
        argv = vllm_serve_argv(
            preset,
            args.uds,
            vllm=args.vllm,
            model=args.model,
            allowed_local_media_path=args.allowed_local_media_path,
        )
    if args.print_command:
        print(shlex.join(argv))
        return 0
    server = VLLMServer(
        argv,
        args.uds,
        log_path=args.log,
        ready_timeout_s=args.ready_timeout,
        max_restarts=args.max_restarts,
    )
    server.start()
    print(
        f"ready: {preset.name} on unix:{server.uds} after {server.ready_s:.1f} s "
        f"(pid {server.pid}, log {server.log_path}); Ctrl-C stops it",
        flush=True,
    )
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    try:
        while not done.wait(5.0):
            server.ensure_healthy()  # restarts a crashed server within its budget
    finally:
        server.stop()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run a preset's model server on a Unix socket (vllm serve, or the stand-in)",
        description="Run the model server a job would run for PRESET until SIGTERM/Ctrl-C.",
    )
    p.add_argument("preset", metavar="PRESET", help="model preset or judge name (models.yaml)")
    p.add_argument("--uds", required=True, help="Unix socket path (at most 107 bytes)")
    p.add_argument("--log", help="server log file (default: <uds>.log)")
    p.add_argument("--print-command", action="store_true", help="print the command and exit")
    p.add_argument("--vllm", default="vllm", help="vllm executable (default: vllm)")
    p.add_argument("--model", help="local weights directory instead of the Hugging Face id")
    p.add_argument("--allowed-local-media-path", help="let requests read media under this path")
    p.add_argument("--ready-timeout", type=float, default=1800.0, help="seconds (default 1800)")
    p.add_argument("--max-restarts", type=int, default=2)
    p.add_argument(
        "--standin",
        action="store_true",
        help="serve the stand-in test double (no model, no GPU) under the preset's name",
    )
    p.add_argument("--standin-latency", type=float, default=0.0, help="stand-in answer delay (s)")
    p.set_defaults(func=_serve)
