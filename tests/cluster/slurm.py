"""A real single-node Slurm (scripts/slurm/start.sh) and the workflows the Slurm tests run.

The workflow runs exactly as on a cluster: `snakemake --profile profiles/slurm`, one sbatch job
per rule instance, fake GPUs behind `gpu=1` requests, accounting in slurmdbd. Two configs:

- the embedded default (``write_default_workflow``): a clean copy of the repository and its
  config/config.yaml (engine checks included: a tiny random-weight preset and judge served by
  the real vLLM CPU build), plus the Video-LLM judge ``qwen3.5-9b`` so that GPU jobs exist, with
  shorter episodes so that it fits in CI;
- a tiny one (``write_probe_workflow``): two copies of the probe fixture game and a served play
  preset, for the kill-and-resume test.

Model servers of GPU presets and judges are the stand-in (the GPU-inference boundary; see
playsuite.testing.standin_server), started by the play or judge job on its node like vLLM; the
engine checks' jobs always start the real engine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from playsuite.config import Condition
from playsuite.planning.play import engine_vllm
from playsuite.processes import probe
from playsuite.testing.repo import copy_repo
from playsuite.testing.standin import standin_argv

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
SERVED = "internvl3.5-8b"  # a served preset: its play job asks Slurm for one GPU
VLM_JUDGE = "qwen3.5-9b"  # a Video-LLM judge: its judge jobs ask Slurm for one GPU
#: Resources a two-core test node can grant, for the presets' and judges' GPU jobs.
TEST_NODE_RESOURCES = {"cpus_per_task": 1, "mem_mb": 2000, "runtime": 15}


def cancel_jobs_under(workdir: Path) -> None:
    """scancel every queued or running job whose working directory is ``workdir``."""
    queued = probe(["squeue", "-h", "-o", "%i %Z"], timeout_s=60)
    lines = queued.stdout.splitlines() if queued is not None else []
    ids = [line.split()[0] for line in lines if line.split()[1:] == [str(workdir)]]
    if ids:
        probe(["scancel", *ids], timeout_s=60)


#: Answer length of the tiny presets in the Slurm tests (the shipped presets keep the paper's 512).
TINY_MAX_TOKENS = 64


def write_test_registry(source: Path, target: Path) -> None:
    """The real model registry with resources the test node can grant (``serve.gpus`` kept), and
    tiny presets that answer in at most :data:`TINY_MAX_TOKENS` tokens: their random weights never
    stop before ``max_tokens``, and 512 noise tokens per request on the CPU engine made the engine
    checks the critical path of the whole run."""
    registry = yaml.safe_load(source.read_text())
    registry["defaults"]["resources"] = dict(TEST_NODE_RESOURCES)
    for preset in registry["presets"].values():
        if preset.get("tiny"):  # noise answers: a short one exercises the same path
            preset["sampling"] = {**preset.get("sampling", {}), "max_tokens": TINY_MAX_TOKENS}
    target.write_text(yaml.safe_dump(registry, sort_keys=False))


def write_default_workflow(root: Path, *, steps: int = 2) -> Path:
    """A clean copy of the repository under ``root`` and the test's config; the config's path.

    The config is config/config.yaml as shipped (local corpus of eight real games, the main and
    ablation conditions, the frame and state judges, the engine checks, every table and figure,
    the catalog sample), with changes that keep CI within its time budget or fit the test node:
    only the ``random`` baseline plays, only the history ablation is planned (over the main
    conditions' history lengths) and only the sample catalog corpus is curated, without launch
    dry-runs (every other rule and job kind still runs); the tiny presets answer in
    at most :data:`TINY_MAX_TOKENS` tokens; the Video-LLM judge ``qwen3.5-9b`` joins (served by
    the stand-in through ``judge.server_argv``, which engine checks ignore; its judge jobs ask
    for a GPU); episodes are ``steps`` long; the registry's default resources fit the test node;
    and ``engine.vllm`` names this checkout's engine (the copy leaves out its 2.5 GB).
    """
    copy_repo(REPO, root)
    write_test_registry(root / "config" / "models.yaml", root / "config" / "models.yaml")
    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    # One baseline: every rule and job kind still runs, with half the play and judge jobs (the
    # two baselines differ only inside the agent, which the local tests cover).
    config["presets"] = ["random"]
    # One ablation (history) over the main conditions' two history lengths: its figure is built
    # (a local rule) with no play or judge job of its own, which would only repeat the main
    # runs' job kinds; the other ablation kinds differ only in their statistics (tests/analysis).
    history = yaml.safe_load((root / "config" / "ablations" / "history.yaml").read_text())
    main = [Condition.parse(c) for c in config["analysis"]["main"].values()]
    history["values"] = sorted(c.history_k for c in main)
    ablation = root / "config" / "ablations" / "slurm-history.yaml"
    ablation.write_text(yaml.safe_dump(history, sort_keys=False))
    config["analysis"]["ablations"] = [str(ablation.relative_to(root))]
    # One catalog corpus (the sample), without its launch dry-runs: the catalog's rules run as
    # Slurm jobs, while the dry-runs (a real game launch each, a dozen jobs) are the local
    # catalog tests' (tests/catalog/conftest.py) and the registry corpus's stages too
    # (tests/catalog/test_debian_registry.py).
    sample = dict(config["catalog"]["corpora"]["sample"])
    sample.pop("launch_results", None)
    config["catalog"]["corpora"] = {"sample": sample}
    config["judges"] = [*config["judges"], VLM_JUDGE]
    config["play"]["steps"] = steps
    config.setdefault("judge", {})["server_argv"] = standin_argv("{uds}", model="{preset}")
    config["engine"]["vllm"] = str(REPO / engine_vllm(config))
    # The copy's own config/config.yaml: Snakemake merges a --configfile into the Snakefile's
    # (keys can be added or changed, never removed), so the changes above go in its place.
    path = root / "config" / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


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
            "genre": "Shooter",
            "controls": "Arrow keys move the square, Space scores a point.",
        }
        for i in range(games)
    ]
    (root / "games.yaml").write_text(yaml.safe_dump({"games": rows}))
    write_test_registry(REPO / "config" / "models.yaml", root / "models.yaml")
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
    workdir: Path, config: Path, *args: str, timeout_s: int = 240, repo: Path = REPO
) -> subprocess.Popen[str]:
    """Start `snakemake --profile profiles/slurm` on ``config`` in ``workdir`` (a Popen), with
    the Snakefile and profile of ``repo`` (this checkout, or a copy of it)."""
    cmd = [
        "timeout",
        "-k",
        "10",
        str(timeout_s),
        SNAKEMAKE,
        "--snakefile",
        str(repo / "Snakefile"),
        "--profile",
        str(repo / "profiles" / "slurm"),
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
