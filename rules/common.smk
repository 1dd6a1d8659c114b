# Helpers shared by the workflow: configuration lookups and target lists (functions only).

from pathlib import Path

from playsuite.config import Condition, load_validated
from playsuite.registry import parse_registry

REGISTRY = parse_registry(load_validated(config["models"], "models"))

for _preset in config["presets"]:
    REGISTRY.preset(_preset)
for _judge in config["judges"]:
    REGISTRY.judge(_judge)
CONDITIONS = {name: Condition.parse(name) for name in config["conditions"]}


def final_outputs():
    """Everything the default target builds."""
    return [
        "results/tables/models.csv",
        "results/tables/models.md",
        "results/tables/models.tex",
    ]
