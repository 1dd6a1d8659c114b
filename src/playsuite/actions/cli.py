"""``playsuite parse``: run a model-output parser on one answer and print canonical actions.

For checking what a parser makes of a model's answer without running a game, e.g.::

    playsuite parse --parser uitars --screen 1280x720 "Action: click(start_box='(644,364)')"
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from playsuite.actions.canonical import actions_to_json
from playsuite.actions.parsers import PARSER_NAMES, get_parser, parse_response

_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


def size(text: str) -> tuple[int, int]:
    """``WxH`` as a (width, height) pair of positive integers."""
    m = _SIZE.match(text)
    if m is None or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise argparse.ArgumentTypeError(
            f"expected WIDTHxHEIGHT in pixels, e.g. 1280x720, got {text!r}"
        )
    return int(m.group(1)), int(m.group(2))


def option(text: str) -> tuple[str, Any]:
    """``NAME=VALUE``; the value is read as JSON when it is JSON (numbers), else as text."""
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        parsed: Any = json.loads(value)
    except ValueError:
        parsed = value
    return name.strip(), parsed


def _parse(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    options = dict(args.option or [])
    actions = parse_response(args.parser, text, args.screen, args.image, options)
    print(json.dumps(actions_to_json(actions)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    lines = [f"  {name:13} {get_parser(name).summary}" for name in PARSER_NAMES]
    p = sub.add_parser(
        "parse",
        help="parse one model answer into canonical actions (JSON list)",
        description="Parse a model answer with one of the Table 8 parsers and print the "
        "canonical actions, in screen pixels, as a JSON list.",
        epilog="parsers:\n" + "\n".join(lines),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--parser", required=True, choices=PARSER_NAMES, metavar="NAME")
    p.add_argument("--screen", required=True, type=size, metavar="WxH", help="game screen size")
    p.add_argument(
        "--image",
        type=size,
        metavar="WxH",
        help="size of the image the model was sent (default: the screen size)",
    )
    p.add_argument(
        "--option",
        action="append",
        type=option,
        metavar="NAME=VALUE",
        help="parser option, as in a preset's parser_options (repeatable)",
    )
    p.add_argument("text", metavar="TEXT", help="the model's answer, or - to read stdin")
    p.set_defaults(func=_parse)
