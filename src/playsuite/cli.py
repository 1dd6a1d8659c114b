"""The ``playsuite`` command line.

Each subsystem owns its subcommands in a ``cli`` module with ``register(subparsers)``; this file
only collects them, so adding a command never means editing another subsystem's code.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from playsuite import __version__

#: Modules that contribute subcommands, in help order.
COMMAND_MODULES: tuple[str, ...] = (
    "playsuite.actions.cli",
    "playsuite.agents.cli",
    "playsuite.judge.cli",
    "playsuite.harness.cli",
    "playsuite.analysis.cli",
    "playsuite.catalog.cli",
    "playsuite.horizon.cli",
    "playsuite.inference.cli",
    "playsuite.planning.cli",
    "playsuite.human.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="playsuite",
        description="Run and score foundation models on real games (PlaySuite benchmark).",
    )
    parser.add_argument("--version", action="version", version=f"playsuite {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as exc:
        print(f"playsuite {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
