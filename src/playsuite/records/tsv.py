"""Reading and writing the TSV records: a header row, one row per record, a ``format`` column.

The TSV contracts (cost records, shard manifests) share these rules: the columns are the ones
the record module names, in its order, with ``format`` last; values never hold a tab or a
newline; a reader checks the header has every column it needs and that ``format`` (absent in
files written before it existed) is a version it knows.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from playsuite.files import atomic_open
from playsuite.records.base import FORMAT_FIELD, RecordError, check_format


def clean(value: Any) -> str:
    """A value as one TSV cell: tabs and newlines become spaces."""
    return str(value).replace("\t", " ").replace("\n", " ").replace("\r", " ")


def write_rows(
    path: str | os.PathLike[str],
    columns: Sequence[str],
    rows: Iterable[Mapping[str, Any]],
    version: int,
) -> None:
    """Atomically write ``rows`` (mappings holding every column) with ``format`` = ``version``."""
    with atomic_open(path) as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow([*columns, FORMAT_FIELD])
        for row in rows:
            writer.writerow([*(clean(row[c]) for c in columns), version])


def read_rows(
    path: str | os.PathLike[str], required: Sequence[str], current: int, what: str
) -> list[dict[str, str]]:
    """The rows of a TSV record as text, after checking its header holds ``required`` and each
    row's format is known (:class:`~playsuite.records.base.RecordError` naming ``path``)."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="\t")
            header = list(reader.fieldnames or [])
            missing = [c for c in required if c not in header]
            if missing:
                raise RecordError(path, f"{what}: missing columns {missing}; it has {header}")
            rows = []
            for n, raw in enumerate(reader, start=2):
                if None in raw or any(raw[c] is None for c in header):
                    raise RecordError(path, f"{what}: line {n} has not one cell per column")
                check_format(path, raw.get(FORMAT_FIELD), current, what)
                rows.append({k: v for k, v in raw.items() if k != FORMAT_FIELD})
    except UnicodeDecodeError as exc:
        raise RecordError(path, f"{what}: not UTF-8 text: {exc}") from None
    return rows


def number(path: str | os.PathLike[str], row: Mapping[str, str], column: str, kind: type) -> Any:
    """Cell ``column`` of ``row`` as ``kind`` (int or float), or a RecordError naming ``path``."""
    try:
        return kind(row[column])
    except (TypeError, ValueError):
        raise RecordError(
            path, f"column {column!r} must be {kind.__name__}, not {row[column]!r}"
        ) from None
