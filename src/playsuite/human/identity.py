"""Stable pseudonymous ids for players and raters.

A study must be able to tell one person's runs or ratings from another's, across sessions and
server restarts, without the result files naming anybody. An id is a keyed hash of the name the
person types (trimmed, case-folded): the same name always gives the same id as long as the
study's secret (a random key in a file, created once with mode 0600) is kept, and the id cannot
be turned back into the name without that key. Delete the secret and the ids can no longer be
linked to names at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

#: Length of the hash part of an id (hex digits): 40 bits, ample for a study's few dozen people.
ID_DIGITS = 10


class IdentityError(ValueError):
    """A name that cannot give an id (empty), or a secret file that is not one."""


def study_secret(path: str | os.PathLike[str]) -> bytes:
    """The key in ``path``, created (random, mode 0600) when absent; two processes that create
    it at once agree on one (the loser of ``O_EXCL`` reads the winner's)."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_hex(32) + "\n")
    text = file.read_text(encoding="ascii").strip()
    if len(text) < 32:
        raise IdentityError(f"{file}: not a study secret (expected a long hex key)")
    return text.encode()


def pseudonym(name: str, secret: bytes, prefix: str) -> str:
    """``{prefix}-{hash}``: the id of the person who calls themselves ``name``."""
    key = " ".join(name.split()).casefold()
    if not key:
        raise IdentityError("a name is needed to give a stable id")
    digest = hmac.new(secret, key.encode(), hashlib.sha256).hexdigest()
    return f"{prefix}-{digest[:ID_DIGITS]}"
