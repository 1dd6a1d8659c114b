# Helpers shared by the workflow: configuration lookups and target lists (functions only).
# Each stage owns one *_targets() function below; final_outputs() is the default target.

from pathlib import Path

from playsuite.config import Condition, load_validated
from playsuite.registry import parse_registry

REGISTRY = parse_registry(load_validated(config["models"], "models"))

for _preset in config["presets"]:
    REGISTRY.preset(_preset)
for _judge in config["judges"]:
    REGISTRY.judge(_judge)
CONDITIONS = {name: Condition.parse(name) for name in config["conditions"]}


def catalog_targets():
    """Catalog curation outputs (funnel, curated tables, genre figure)."""
    return []


def play_targets():
    """Episode directories of every (corpus, preset, condition, game)."""
    return []


def judge_targets():
    """Judgements and scores tables."""
    return []


def analysis_targets():
    """Tables, figures and the report inputs."""
    return [
        "results/tables/models.csv",
        "results/tables/models.md",
        "results/tables/models.tex",
    ]


def final_outputs():
    """Everything the default target builds."""
    return catalog_targets() + play_targets() + judge_targets() + analysis_targets()
