"""``playsuite serve``: run (or print) the model server of a preset, outside any workflow job.

For a person on a GPU node who wants to see exactly what a job would run, try a preset's server
by hand, or give a notebook a model to talk to; and, with ``--server-argv``, any other server
command under the same lifecycle (another engine build, or a test double from playsuite.testing).
"""

from __future__ import annotations

import argparse
import json
import shlex
import signal
import sys
import threading
from collections.abc import Callable

from playsuite.inference.engine import DEFAULT_VLLM


def _preset(name: str):
    from playsuite.config import ConfigError
    from playsuite.registry import load_registry

    registry = load_registry()
    if name in registry.presets:
        return registry.preset(name)
    if name in registry.judges:
        return registry.judge(name)
    if name in registry.classifiers:
        return registry.classifier(name)
    known = ", ".join(sorted([*registry.presets, *registry.judges, *registry.classifiers]))
    raise ConfigError(f"unknown preset, judge or classifier {name!r}; known: {known}")


def _argv_template(text: str) -> list[str]:
    from playsuite.config import ConfigError

    try:
        argv = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--server-argv is not JSON: {exc}") from None
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise ConfigError("--server-argv must be a non-empty JSON list of strings")
    return argv


def _serve(args: argparse.Namespace) -> int:
    from playsuite.inference.command import fill_server_argv, vllm_serve_argv
    from playsuite.inference.server import VLLMServer

    preset = _preset(args.preset)
    if args.server_argv:
        argv = fill_server_argv(_argv_template(args.server_argv), uds=args.uds, preset=preset.name)
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
    limits = {
        "log_path": args.log,
        "ready_timeout_s": args.ready_timeout,
        "max_restarts": args.max_restarts,
    }
    if args.server_argv:
        server = VLLMServer(argv, args.uds, **limits)
    else:  # with the preset's server environment (serve.env)
        server = VLLMServer.for_preset(
            preset,
            args.uds,
            vllm=args.vllm,
            model=args.model,
            allowed_local_media_path=args.allowed_local_media_path,
            **limits,
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
        help="run a preset's model server on a Unix socket (vllm serve, or a given command)",
        description="Run the model server a job would run for PRESET until SIGTERM/Ctrl-C.",
    )
    p.add_argument("preset", metavar="PRESET", help="model preset or judge name (models.yaml)")
    p.add_argument("--uds", required=True, help="Unix socket path (at most 107 bytes)")
    p.add_argument("--log", help="server log file (default: <uds>.log)")
    p.add_argument("--print-command", action="store_true", help="print the command and exit")
    p.add_argument("--vllm", default=DEFAULT_VLLM, help=f"vLLM command (default: {DEFAULT_VLLM})")
    p.add_argument("--model", help="local weights directory instead of the Hugging Face id")
    p.add_argument("--allowed-local-media-path", help="let requests read media under this path")
    p.add_argument("--ready-timeout", type=float, default=1800.0, help="seconds (default 1800)")
    p.add_argument("--max-restarts", type=int, default=2)
    p.add_argument(
        "--server-argv",
        metavar="JSON",
        help="serve with this command instead of vllm serve: a JSON list with {uds} and {preset} "
        "placeholders, as play.server_argv and judge.server_argv in the config",
    )
    p.set_defaults(func=_serve)

    e = sub.add_parser(
        "engine",
        help="the inference engine: build tiny models, check serve command lines",
        description="Work that runs inside the engine's own environment (.venv-engine).",
    )
    e.add_argument("--vllm", default=DEFAULT_VLLM, help=f"vLLM command (default: {DEFAULT_VLLM})")
    esub = e.add_subparsers(dest="engine_command", required=True, metavar="ACTION")
    b = esub.add_parser(
        "build-tiny",
        help="build tiny random-weight models (deterministic, offline) for tiny-* presets",
        description="Build the models of the given tiny presets or judges into their hf_id "
        "folders (default: every tiny preset and judge of the registry), or one --arch to --out.",
    )
    b.add_argument("names", nargs="*", metavar="PRESET", help="tiny presets or judges")
    b.add_argument("--arch", help="build this architecture (qwen2_vl, qwen2_5_vl, qwen3_vl) ...")
    b.add_argument("--out", help="... into this folder")
    b.add_argument("--models", help="model registry (default: config/models.yaml)")
    b.set_defaults(func=_engine_errors(_build_tiny))
    c = esub.add_parser(
        "check-argv",
        help="parse every preset's and judge's `vllm serve` argv with the installed vLLM",
    )
    c.add_argument("--models", help="model registry (default: config/models.yaml)")
    c.set_defaults(func=_engine_errors(_check_argv))


def _engine_errors(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """An engine action whose missing or broken engine is a one-line error, not a traceback."""

    def wrapped(args: argparse.Namespace) -> int:
        from playsuite.inference.engine import EngineUnavailable

        try:
            return run(args)
        except EngineUnavailable as exc:
            print(f"playsuite engine: error: {exc}", file=sys.stderr)
            return 2

    return wrapped


def _build_tiny(args: argparse.Namespace) -> int:
    from playsuite.inference.engine import build_tiny_model
    from playsuite.registry import load_registry

    if args.arch or args.out:
        if not (args.arch and args.out) or args.names:
            raise ValueError("--arch and --out go together, without preset names")
        targets = [(args.arch, args.out)]
    else:
        registry = load_registry(args.models) if args.models else load_registry()
        served = {**registry.presets, **registry.judges}
        names = args.names or [n for n, p in served.items() if p.tiny]
        targets = []
        for name in names:
            if name not in served or not served[name].tiny:
                raise ValueError(f"{name!r} is not a tiny preset or judge of the registry")
            target = (served[name].tiny, served[name].hf_id)
            if target not in targets:
                targets.append(target)
    for arch, out in targets:
        summary = build_tiny_model(arch, out, vllm=args.vllm)
        print(
            f"{out}: {arch}, {summary['parameters']:,} parameters, {summary['bytes']:,} bytes, "
            f"sha256 {summary['sha256'][:16]}"
        )
    return 0


def _check_argv(args: argparse.Namespace) -> int:
    from playsuite.inference.command import vllm_serve_argv
    from playsuite.inference.engine import check_serve_argv, engine_version
    from playsuite.registry import load_registry

    registry = load_registry(args.models) if args.models else load_registry()
    models = [*registry.presets.values(), *registry.judges.values(), *registry.classifiers.values()]
    served = [p for p in models if p.needs_server]
    argvs = [vllm_serve_argv(p, "/tmp/playsuite-check.sock", vllm=args.vllm) for p in served]
    verdicts = check_serve_argv(argvs, vllm=args.vllm)
    print(f"vllm {engine_version(args.vllm)}")
    for preset, verdict in zip(served, verdicts, strict=True):
        print(f"{preset.name}: {'ok' if verdict is None else 'REJECTED: ' + verdict}")
    return 0 if all(v is None for v in verdicts) else 1
