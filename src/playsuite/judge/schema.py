"""The milestone schema, loaded once from the single JSON file shared by decoding and validation."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

BOOLEAN_FIELDS: tuple[str, ...] = (
    "gameplay_happened",
    "menu_or_title_seen",
    "left_menu_into_gameplay",
    "player_control_evident",
    "score_or_resource_increased",
    "new_area_or_level_reached",
    "checkpoint_or_objective_completed",
    "win_or_completion_screen",
    "stuck_or_looping",
)
COUNT_FIELDS: tuple[str, ...] = ("distinct_interactions", "death_or_game_over_count")
MAX_DISTINCT_INTERACTIONS = 20


class MilestoneError(ValueError):
    """A milestone object that does not satisfy the schema."""


@cache
def milestone_schema() -> dict[str, Any]:
    """The JSON Schema as a dict (pass it to ``response_format`` for constrained decoding)."""
    text = resources.files("playsuite.judge").joinpath("milestones.schema.json").read_text()
    return json.loads(text)


def schema_outline(schema: dict[str, Any] | None = None) -> str:
    """The reply's shape for the judge prompt, written out from the schema itself.

    One top-level field per line, each value replaced by its type and range (``true|false``,
    ``integer 0-20``), so the prompt shows the model exactly the object that constrained decoding
    and validation expect, and cannot drift from them when a field is added.
    """
    schema = schema or milestone_schema()
    lines = [f'  "{name}": {_outline(spec)}' for name, spec in schema["properties"].items()]
    return "{\n" + ",\n".join(lines) + "\n}"


def _outline(spec: dict[str, Any]) -> str:
    kind = spec.get("type")
    if kind == "boolean":
        return "true|false"
    if kind in ("integer", "number"):
        low, high = spec.get("minimum"), spec.get("maximum")
        return kind if low is None or high is None else f"{kind} {low:g}-{high:g}"
    if kind == "string":
        if "enum" in spec:
            return "one of the field names above"
        if "maxLength" in spec:
            return f"string of at most {spec['maxLength']} characters"
        return "string"
    if kind == "array":
        most = f" (at most {spec['maxItems']} entries)" if "maxItems" in spec else ""
        return f"[{_outline(spec['items'])}, ...]{most}"
    if kind == "object":
        fields = ", ".join(f'"{k}": {_outline(v)}' for k, v in spec["properties"].items())
        return "{" + fields + "}"
    raise ValueError(f"no outline for schema type {kind!r}")


def validate_milestones(obj: Any) -> dict[str, Any]:
    """Return ``obj`` if it is a valid milestone object, else raise :class:`MilestoneError`.

    Extra keys that judges add beside the milestones (``level``, ``judge``...) are ignored here:
    only the schema's own fields are checked.
    """
    if not isinstance(obj, dict):
        raise MilestoneError(f"milestones must be a JSON object, got {type(obj).__name__}")
    fields = {k: v for k, v in obj.items() if k in milestone_schema()["properties"]}
    validator = jsonschema.Draft202012Validator(milestone_schema())
    errors = sorted(validator.iter_errors(fields), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.path) or "(root)"
        raise MilestoneError(f"{where}: {first.message}")
    return obj
