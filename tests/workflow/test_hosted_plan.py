"""A hosted preset (kind ``openai``) in a run's plan: its play jobs ask Slurm for no GPU, get the
baselines' CPU resources and wait for no model to be built (docs/cluster.md)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import yaml

from playsuite.config import with_defaults
from playsuite.planning.plan import Plan

REPO = Path(__file__).resolve().parents[2]
PRESET = "gpt-4.1-mini"


def test_a_hosted_presets_jobs_ask_for_no_gpu_and_no_model(tmp_path: Path) -> None:
    row = {
        "id": "probe-a",
        "title": "Probe game",
        "source": "local",
        "package": str(REPO / "tests" / "fixtures" / "probe_game"),
        "runtime": "pygame",
        "entry": "main.py",
        "controls": "Arrow keys move the square.",
    }
    table = tmp_path / "corpus.yaml"
    table.write_text(yaml.safe_dump({"games": [row]}))
    config = {
        "models": str(REPO / "config" / "models.yaml"),
        "corpora": {"test": {"table": str(table)}},
        "presets": [PRESET, "qwen3-vl-8b"],
        "conditions": ["k0-hz0.33-base"],
        "judges": ["frame"],
        "play": {"shard_size": 8, "workers": 3, "steps": 4},
    }
    plan = Plan.from_config(with_defaults(config, "config"))
    hosted, served = plan.registry.preset(PRESET), plan.registry.preset("qwen3-vl-8b")
    assert (hosted.gpus, served.gpus) == (0, 1)  # rules/play.smk: gpu=preset.gpus
    # the rule's defaults (a baseline's: W cpus, 4000·W MB, 120 min), not a GPU node's
    assert plan.preset_resource(PRESET, "cpus_per_task", 3) == 3
    assert plan.preset_resource(PRESET, "mem_mb", 12000) == 12000
    assert plan.preset_resource("qwen3-vl-8b", "mem_mb", 12000) == served.resources["mem_mb"]
    wc = SimpleNamespace(corpus="test", preset=PRESET, condition="k0-hz0.33-base", shard="s0000")
    assert plan.preset_model(wc) == []
    assert ("test", PRESET, "k0-hz0.33-base", "s0000") in plan.unit_by_key
