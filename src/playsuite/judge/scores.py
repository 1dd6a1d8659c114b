"""Filling the scores table ``results/scores/{judge}.tsv``: one row per judged episode.

The table's columns, writer and reader are the contract of playsuite.records.scores; this module
decides each row. ``status`` is the episode's run status when the run did not end ``ok``
(crashed, timeout...), else ``ok`` when the judge produced a level, else ``judge_<status>``
(``judge_failed``, ``judge_no_video``, ``judge_no_probes``, ``judge_corrupt_video``...). An
episode whose ``meta.json`` is damaged has the status ``corrupt_meta`` (``missing_episode`` when
there is none). Rows that are not ``ok`` are kept, so counts of valid evaluations can be
reported and damaged episodes are seen, and excluded from means by the analysis. ``level`` is
empty when the judge gave none.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from playsuite.config import Condition
from playsuite.judge.result import CORRUPT_META, OK, read_judgement
from playsuite.records.episode import CorruptEpisode, EpisodeError, read_meta
from playsuite.records.scores import scores_frame


def score_row(
    judgement: Mapping[str, Any],
    episode_status: str,
    *,
    corpus: str,
    preset: str,
    condition: str,
    game: str,
    family: str,
    genre: str,
    judge: str,
) -> dict[str, Any]:
    """One scores-table row from a judgement and the episode's run status."""
    cond = Condition.parse(condition)
    judged = judgement.get("status") == OK
    if episode_status != OK:
        status = episode_status
    elif judged:
        status = OK
    else:
        status = f"judge_{judgement.get('status', 'missing')}"
    return {
        "corpus": corpus,
        "preset": preset,
        "family": family,
        "condition": condition,
        "history_k": cond.history_k,
        "hz": cond.hz,
        "variant": cond.variant,
        "game": game,
        "genre": genre,
        "judge": judge,
        "level": int(judgement["level"]) if judged else None,
        "status": status,
    }


def collect_scores(
    judge: str,
    episodes: Iterable[tuple[str | os.PathLike[str], str | os.PathLike[str]]],
    families: Mapping[str, str],
    genres: Mapping[tuple[str, str], str | None],
) -> pd.DataFrame:
    """Rows for ``(judgement file, episode dir)`` pairs; the episode dir is ``.../{corpus}/
    {preset}/{condition}/{game}``. ``families`` maps preset -> family, ``genres`` (corpus, game)
    -> genre."""
    rows = []
    for judgement_path, episode_dir in episodes:
        ep = Path(episode_dir)
        corpus, preset, condition, game = ep.parts[-4:]
        try:
            status = str(read_meta(ep).get("status", OK))
        except CorruptEpisode:
            status = CORRUPT_META
        except EpisodeError:
            status = "missing_episode"
        rows.append(
            score_row(
                read_judgement(judgement_path),
                status,
                corpus=corpus,
                preset=preset,
                condition=condition,
                game=game,
                family=families.get(preset, ""),
                genre=genres.get((corpus, game)) or "",
                judge=judge,
            )
        )
    return scores_frame(rows)
