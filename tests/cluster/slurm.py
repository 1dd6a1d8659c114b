"""A real single-node Slurm (scripts/slurm/start.sh) and a tiny workflow config to run under it.

The workflow runs exactly as on a cluster: `snakemake --profile profiles/slurm`, one sbatch job
per rule instance, fake GPUs behind `gpu=1` requests, accounting in slurmdbd. Only the config is
small (two copies of the probe fixture game, short episodes) so that the test fits in CI; the
served preset's model server is the stand-in (the GPU-inference boundary; see
playsuite.inference.standin_server), started by the play job on its node like vLLM would be.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from playsuite.inference.command import standin_argv

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
SERVED = "internvl3.5-8b"  # a served preset: its play job asks Slurm for one GPU


def cancel_jobs_under(workdir: Path) -> None:
    """scancel every queued or running job whose working directory is ``workdir``."""
    out = subprocess.run(
        ["squeue", "-h", "-o", "%i %Z"], capture_output=True, text=True
    ).stdout.splitlines()
    ids = [line.split()[0] for line in out if line.split()[1:] == [str(workdir)]]
    if ids:
        subprocess.run(["scancel", *ids], capture_output=True)


def write_probe_workflow(
    root: Path, *, steps: int = 3, games: int = 2, latency_s: float = 0.05
) -> Path:
    """Config, corpus and model registry of the tiny Slurm workflow under ``root``; the config."""
    rows = [
        {
            "id": f"probe-{i}",
            "title": f"Probe game {i}",
            "source": "local",
            "package": str(REPO / "tests" / "fixtures" / "probe_game"),
            "runtime": "pygame",
            "entry": "main.py",
            "genre": "Arcade",
            "controls": "Arrow keys move the square, Space scores a point.",
        }
        for i in range(games)
    ]
    (root / "games.yaml").write_text(yaml.safe_dump({"games": rows}))
    # The real registry, with resources a two-core test node can grant (serve.gpus kept).
    registry = yaml.safe_load((REPO / "config" / "models.yaml").read_text())
    registry["defaults"]["resources"] = {"cpus_per_task": 1, "mem_mb": 2000, "runtime": 15}
    (root / "models.yaml").write_text(yaml.safe_dump(registry))
    config = {
        "models": str(root / "models.yaml"),
        "corpora": {"probe": {"table": str(root / "games.yaml")}},
        "presets": ["random", SERVED],
        "conditions": ["k0-hz0.33-base", "k3-hz0.33-base"],
        "judges": ["frame"],
        "seed": 0,
        "play": {
            "shard_size": 8,
            "workers": 2,
            "steps": steps,
            "wall_timeout_s": 300,
            "server_argv": standin_argv("{uds}", model="{preset}", latency_s=latency_s),
        },
        "analysis": {
            "bootstrap": {"resamples": 200},
            "genres": {"min_games": 1},
            "stability": {"sizes": [1, 2], "subsets": 10},
            "ablations": [],
            "reference": str(REPO / "config" / "reference" / "paper.yaml"),
            "ratings": None,
        },
        "judge": {"shard_size": 8},
    }
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def snakemake_slurm(
    workdir: Path, config: Path, *args: str, timeout_s: int = 240
) -> subprocess.Popen[str]:
    """Start `snakemake --profile profiles/slurm` on ``config`` in ``workdir`` (a Popen)."""
    cmd = [
        "timeout",
        "-k",
        "10",
        str(timeout_s),
        SNAKEMAKE,
        "--snakefile",
        str(REPO / "Snakefile"),
        "--profile",
        str(REPO / "profiles" / "slurm"),
        "--workflow-profile",
        "none",
        "--directory",
        str(workdir),
        "--configfile",
        str(config),
        # Test cluster: ask Slurm early and often (the profile keeps the plugin's defaults).
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--latency-wait",
        "5",
        *args,
    ]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    return subprocess.Popen(
        cmd,
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
