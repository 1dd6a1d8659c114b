"""Shared set-up of the benchmarks that run the real engine (vLLM's CPU build) on a tiny preset.

Not a benchmark itself: the ``engine_*`` scripts import it (they run as
``.venv/bin/python benchmarks/engine_*.py``, so this folder is on ``sys.path``). It builds the tiny
random-weight model a preset names (once, into a cache folder), starts the preset's server through
:meth:`VLLMServer.for_preset` exactly as node and judge jobs do, and describes the machine, since
a 2-core machine shared with other work makes every figure depend on the load at the time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from playsuite.inference.engine import DEFAULT_VLLM, build_tiny_model, resolve_vllm
from playsuite.inference.server import VLLMServer

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MODELS = "/tmp/playsuite-bench-engine/models"


def add_engine_args(parser: argparse.ArgumentParser, preset: str) -> None:
    parser.add_argument("--preset", default=preset, help="a tiny preset or judge of models.yaml")
    parser.add_argument(
        "--vllm", default=DEFAULT_VLLM, help="engine command (relative: to the repository)"
    )
    parser.add_argument(
        "--models", default=DEFAULT_MODELS, help="where tiny models are built once and reused"
    )
    parser.add_argument("--ready-timeout", type=float, default=1800.0, help="server start bound, s")


def vllm_command(args: argparse.Namespace) -> str:
    return resolve_vllm(args.vllm, base=REPO)


def tiny_model(preset: Any, args: argparse.Namespace) -> str:
    """The local directory of ``preset``'s tiny model, built on first use (deterministic)."""
    if not preset.tiny:
        raise SystemExit(f"{preset.name} is not a tiny preset (no `tiny:` architecture)")
    out = Path(args.models) / preset.tiny
    if not (out / "config.json").exists():
        started = time.perf_counter()
        summary = build_tiny_model(preset.tiny, out, vllm=vllm_command(args))
        print(
            f"built tiny {preset.tiny} ({summary['parameters']:,} parameters) into {out} "
            f"in {time.perf_counter() - started:.1f} s"
        )
    return str(out)


def machine() -> str:
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    return f"{os.cpu_count()} cores, load average {load} (1/5/15 min) at start"


@contextlib.contextmanager
def engine_server(
    preset: Any, args: argparse.Namespace, extra: Sequence[str] = ()
) -> Iterator[tuple[VLLMServer, str]]:
    """The preset's real vLLM server on a private socket; yields ``(server, uds)``.

    ``extra`` flags go after the preset's own (later flags win in vLLM). The log is kept (and
    named) when the server fails to start or the benchmark fails, removed otherwise.
    """
    model = tiny_model(preset, args)
    tmp = tempfile.mkdtemp(prefix="psbe-", dir="/tmp")  # socket paths must stay short
    uds = str(Path(tmp) / "m.sock")
    log = Path(tmp) / "server.log"
    server = VLLMServer.for_preset(
        preset,
        uds,
        vllm=vllm_command(args),
        model=model,
        log_path=log,
        ready_timeout_s=args.ready_timeout,
    )
    server.argv += [str(a) for a in extra]
    try:
        server.start()
        print(f"{preset.name}: vLLM (CPU build) ready in {server.ready_s:.1f} s")
        yield server, uds
    except BaseException:
        server.stop()
        print(f"server log kept: {log}")
        raise
    server.stop()
    shutil.rmtree(tmp, ignore_errors=True)
