"""Judging: milestone schema, the level rule, and the judges that fill milestones from videos."""

from playsuite.judge.levels import LEVEL_NAMES, PARTIAL_PLUS, level_name, progress_level
from playsuite.judge.schema import (
    BOOLEAN_FIELDS,
    COUNT_FIELDS,
    MilestoneError,
    milestone_schema,
    validate_milestones,
)

__all__ = [
    "BOOLEAN_FIELDS",
    "COUNT_FIELDS",
    "LEVEL_NAMES",
    "PARTIAL_PLUS",
    "MilestoneError",
    "level_name",
    "milestone_schema",
    "progress_level",
    "validate_milestones",
]
