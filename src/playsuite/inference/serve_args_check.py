"""Checks ``vllm serve`` command lines against the installed vLLM's own argument parser.

Runs in the *engine's* Python (it imports vllm); :func:`playsuite.inference.engine.check_serve_argv`
starts it there. It builds the parser exactly as the ``vllm`` command does (the ``serve``
subcommand's own ``subparser_init``), parses each command line and runs the subcommand's
``validate``, so a flag or a value the pinned vLLM does not accept is found here, in a test,
instead of in a cluster job an hour into its queue.

Input (stdin): a JSON list of argv lists, each starting ``[vllm, "serve", MODEL, ...]``.
Output (stdout, last line): a JSON list with, per argv, ``null`` (accepted) or the error text.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys


def _serve_parser():  # type: ignore[no-untyped-def]
    import vllm.entrypoints.cli.serve as serve
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = FlexibleArgumentParser(prog="vllm")
    sub = parser.add_subparsers(required=True, dest="subparser")
    commands = {}
    for command in serve.cmd_init():
        command.subparser_init(sub)
        commands[command.name] = command
    return parser, commands


def check(argvs: list[list[str]]) -> list[str | None]:
    parser, commands = _serve_parser()
    results: list[str | None] = []
    for argv in argvs:
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                args = parser.parse_args(argv[1:])
                commands[args.subparser].validate(args)
        except SystemExit as exc:  # argparse reports a bad flag or value, then exits
            results.append(err.getvalue().strip() or f"rejected (exit {exc.code})")
            continue
        except Exception as exc:  # validate() raises ValueError and friends
            results.append(f"{type(exc).__name__}: {exc}")
            continue
        results.append(None)
    return results


def main() -> int:
    argvs = json.load(sys.stdin)
    print(json.dumps(check(argvs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
