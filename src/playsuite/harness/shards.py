"""Splitting a corpus into shards: the unit of one cluster job (one model server, W workers).

Games are ordered by id and cut into consecutive chunks, so a shard's membership depends only on
the corpus and the shard size: the workflow, the node runner and a user rerunning one shard all
agree on it without storing anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from playsuite.corpus import GameEntry


def shard_key(index: int) -> str:
    return f"s{index:04d}"


def shard_games(games: Sequence[GameEntry], shard_size: int) -> dict[str, list[GameEntry]]:
    """``{shard key: games}`` in game-id order; every game in exactly one shard."""
    if shard_size < 1:
        raise ValueError(f"shard_size must be >= 1, got {shard_size}")
    ordered = sorted(games, key=lambda g: g.id)
    return {
        shard_key(i // shard_size): ordered[i : i + shard_size]
        for i in range(0, len(ordered), shard_size)
    }
