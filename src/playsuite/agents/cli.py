"""``playsuite prompt``: show the exact prompt a preset gets for a game under a condition.

Prompts are assembled from a template file, catalog text and the condition; reading the result is
the quickest way to check a new template, a new variant or a game's catalog row.
"""

from __future__ import annotations

import argparse
from pathlib import Path

SYSTEM_HEADING = "===== system message ====="
USER_HEADING = "===== user message ====="


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WxH, e.g. 800x600, got {text!r}") from None
    if width <= 0 or height <= 0:
        raise argparse.ArgumentTypeError(f"sizes must be positive, got {text!r}")
    return width, height


def _prompt(args: argparse.Namespace) -> int:
    from playsuite.agents.prompts import EpisodePrompt, available_templates, template_for
    from playsuite.config import config_dir
    from playsuite.corpus import find_game, load_corpus
    from playsuite.registry import load_registry

    if args.list:
        print("\n".join(available_templates()))
        return 0
    if not args.game:
        raise ValueError("--game is required (or --list)")
    catalog = Path(args.catalog) if args.catalog else config_dir() / "corpora" / "local.yaml"
    game = find_game(load_corpus(catalog), args.game)
    preset = args.template or load_registry().preset(args.agent)
    readme = None
    if args.readme:
        readme = Path(args.readme).read_text(encoding="utf-8", errors="replace")
    prompt = EpisodePrompt.for_run(preset, args.condition, game, readme_text=readme)
    screen = args.screen or game.screen_size or (800, 600)
    system = prompt.render_system(screen, args.image)
    if system:  # sent as its own message: shown under its own heading
        print(f"{SYSTEM_HEADING}\n{system}\n{USER_HEADING}")
    print(prompt.render(screen, args.image), end="")
    if args.verbose:
        print(f"\n[template {template_for(preset, args.condition)}: {prompt.template.path}]")
        if prompt.template.system is not None:
            print(f"[system part: {prompt.template.system.path}]")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prompt", help="print the prompt a preset gets for a game under a condition")
    p.add_argument("--game", help="game id in the catalog")
    p.add_argument("--catalog", help="corpus table (YAML or TSV); default: the local corpus")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--agent", default="explorer", help="model preset (default: explorer)")
    who.add_argument("--template", help="template name instead of a preset's")
    p.add_argument(
        "--condition", default="k0-hz0.33-base", help="k{K}-hz{HZ}-{variant}[+{setting}={value}...]"
    )
    p.add_argument("--screen", type=_size, help="game screen WxH (default: the game's, or 800x600)")
    p.add_argument("--image", type=_size, help="size of the screenshot the model sees (WxH)")
    p.add_argument("--readme", help="file whose text becomes the developer instructions")
    p.add_argument("--list", action="store_true", help="list the available templates")
    p.add_argument("-v", "--verbose", action="store_true", help="say which template file was used")
    p.set_defaults(func=_prompt)
