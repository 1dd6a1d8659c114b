"""Atomic file writes: a killed job must never leave a file that looks finished.

Every output the workflow or the harness produces goes through these helpers: the content is
written to a temporary file in the target's directory, flushed to disk, then renamed over the
target (rename is atomic on one filesystem).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

MB = 1024 * 1024


@contextmanager
def atomic_path(target: str | os.PathLike[str], suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path next to ``target``; rename it onto ``target`` on success.

    Use this for writers that want a filename (PyAV, matplotlib). On an exception the temporary
    file is removed and ``target`` is untouched.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=suffix or ".tmp", dir=target.parent
    )
    os.close(fd)
    tmp_path = Path(tmp)
    os.chmod(tmp_path, 0o644)  # mkstemp creates 0600; results are meant to be shared
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, target)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


@contextmanager
def atomic_open(
    target: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8"
) -> Iterator[IO[Any]]:
    """Open a temporary file for writing that replaces ``target`` only when closed cleanly."""
    if "b" in mode:
        encoding = None
    with atomic_path(target) as tmp, open(tmp, mode, encoding=encoding) as fh:
        yield fh


@contextmanager
def atomic_dir(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield an empty temporary directory next to ``target``; on success it replaces ``target``
    (an older ``target`` is moved aside first and removed after). On an exception the temporary
    directory is removed and ``target`` is untouched."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    try:
        yield tmp
        old = None
        if target.exists():
            old = Path(
                tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent)
            )
            os.replace(target, old / "previous")
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


class DirectoryTaken(FileExistsError):
    """Another writer put a non-empty directory where this one meant to publish its own."""


def publish_dir(tmp: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Rename the finished directory ``tmp`` onto ``target`` if ``target`` is absent or empty.

    Unlike :func:`atomic_dir`, an existing non-empty ``target`` is never replaced: it belongs to
    another writer (or the user), and two writers must never end up with one folder holding files
    of both. Then :class:`DirectoryTaken` is raised and ``tmp`` is left for the caller to drop.
    """
    try:
        os.rename(tmp, target)  # replaces an empty directory, refuses a non-empty one
    except OSError as exc:
        if Path(target).is_dir() and any(Path(target).iterdir()):
            raise DirectoryTaken(
                f"{target} was written by another process meanwhile; its content is kept"
            ) from exc
        raise


class InsufficientSpace(OSError):
    """A folder's file system has less free space than a job needs before it starts writing."""


def require_free_space(folder: str | os.PathLike[str], needed_bytes: int, setting: str) -> None:
    """Fail with a message naming ``folder`` when its file system has under ``needed_bytes`` free.

    Checked before a job or a video writer starts: on a full disk, encoders such as PyAV can crash
    the process (a segfault) instead of raising, which names neither the cause nor the folder.
    ``setting`` is the name of the threshold, so the message says what to change.
    """
    if needed_bytes <= 0:
        return
    path = Path(folder)
    probe = next((p for p in (path, *path.parents) if p.exists()), path)
    free = shutil.disk_usage(probe).free
    if free < needed_bytes:
        raise InsufficientSpace(
            f"not enough free space in {path}: {free / MB:.0f} MB free, "
            f"{needed_bytes / MB:.0f} MB needed ({setting}); free some space or lower the setting"
        )


def write_text_atomic(target: str | os.PathLike[str], text: str) -> None:
    with atomic_open(target) as fh:
        fh.write(text)


def write_json_atomic(target: str | os.PathLike[str], obj: Any, indent: int | None = 2) -> None:
    with atomic_open(target) as fh:
        json.dump(obj, fh, indent=indent, sort_keys=False, ensure_ascii=False)
        fh.write("\n")


def write_records_tsv(
    target: str | os.PathLike[str], records: Iterable[Any], columns: Sequence[str]
) -> None:
    """Atomically write objects as a TSV with a header, one row per object (``columns`` are its
    attribute names). Tabs and newlines inside values become spaces so a free-text field (a
    model's reasoning) can never break the table's shape."""
    with atomic_open(target) as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(columns)
        for record in records:
            values = (str(getattr(record, c)) for c in columns)
            writer.writerow([v.replace("\t", " ").replace("\n", " ") for v in values])


def read_json(path: str | os.PathLike[str]) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)
