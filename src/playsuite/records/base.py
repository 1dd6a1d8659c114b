"""What every record module shares: the error that names the file, and the format-version rule."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The field (JSON key or TSV column) that carries a record's format version.
FORMAT_FIELD = "format"


class RecordError(ValueError):
    """A record file that does not hold what its contract says. ``file`` is that file."""

    def __init__(self, file: str | os.PathLike[str], detail: str) -> None:
        super().__init__(f"{file}: {detail}")
        self.file = Path(file)


def check_format(file: str | os.PathLike[str], found: Any, current: int, what: str) -> int:
    """The format version of a record: ``found`` as read (None: written before versions were
    recorded, read as version 1). A version this code does not know is refused, with the file."""
    if found is None or found == "":
        return 1
    try:
        version = int(found)
    except (TypeError, ValueError):
        version = -1
    if isinstance(found, bool) or version < 1 or str(found).strip() != str(version):
        raise RecordError(file, f"{what} format {found!r} is not a version number")
    if version > current:
        raise RecordError(
            file,
            f"{what} format {version} is newer than this playsuite reads (up to {current}); "
            "read it with the version that wrote it",
        )
    return version


def type_name(types: tuple[type, ...]) -> str:
    names = ["null" if t is type(None) else t.__name__ for t in types]
    return " or ".join(names)


def check_types(
    file: str | os.PathLike[str],
    obj: Mapping[str, Any],
    spec: Mapping[str, tuple[type, ...]],
    where: str = "",
) -> None:
    """Every key of ``spec`` that ``obj`` holds has one of its types (bool is no number)."""
    for key, types in spec.items():
        if key not in obj:
            continue
        value = obj[key]
        is_bool = isinstance(value, bool)
        ok = any((is_bool and t is bool) or (not is_bool and isinstance(value, t)) for t in types)
        if not ok:
            raise RecordError(
                file, f"{where}{key!r} must be {type_name(types)}, not {type(value).__name__}"
            )
