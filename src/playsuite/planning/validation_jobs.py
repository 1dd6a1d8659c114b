"""The jobs of the judge-validation rules (paper Table 10; rules/validation.smk) and of the
agreement table that sets the judges beside the human raters (rule judge_agreement).

As in playsuite.planning.analysis_jobs, each function is a workflow script's body, so the
script only unpacks Snakemake's objects; what a job prints goes to standard error, which the
script points at the rule's log.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from playsuite.files import write_text_atomic
from playsuite.judge.validation import read_sample


def validation_sample_job(
    manifests: Sequence[str], per_corpus: Mapping[str, int], seed: int, out: Mapping[str, str]
) -> None:
    """Draw the validation set from the play shards' ``manifests`` and blind it for raters
    (``out``: sample, raters, videos); a corpus with fewer valid episodes than asked is named."""
    from playsuite.judge.validation import candidates, draw_sample, write_validation_set

    sample, short = draw_sample(candidates(manifests), dict(per_corpus), seed)
    for corpus, missing in short.items():
        print(f"corpus {corpus}: {missing} fewer valid episodes than asked", file=sys.stderr)
    write_validation_set(sample, out["sample"], out["raters"], out["videos"])
    print(f"{len(sample)} episodes: {sample.groupby('corpus').size().to_dict()}", file=sys.stderr)


def validation_judge_job(
    judge: str,
    sample: str,
    *,
    judgement_dir: str,
    manifest: str,
    settings: Mapping[str, Any],
    catalogs: Mapping[str, str],
    games_dir: str,
    vllm: str,
    server_argv: Sequence[str],
    log: str,
) -> dict[str, int]:
    """Judge the validation set ``sample`` with one validation judge (one model server for the
    whole set), writing its judgements and ``manifest``. Judgement files are named by blinded
    id: the set may hold one game played by several runs."""
    from playsuite.judge.run import run_shard_manifest, shard_options

    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    table = read_sample(sample)
    episodes = list(table["episode_dir"])
    options = shard_options(
        settings,
        catalogs,
        episodes,
        games_dir,
        vllm=vllm,
        server_argv=server_argv,
        server_log=log + ".server",
    )
    counts = run_shard_manifest(
        judge, episodes, judgement_dir, manifest, options, stems=list(table["video_id"])
    )
    print(f"judge {judge}: {len(episodes)} validation episodes, {counts}", file=sys.stderr)
    return counts


def validation_ratings_job(
    sample: str, judges: Sequence[str], manifests: Sequence[str], output: str
) -> None:
    """The validation judges' answers as rating rows (the ratings CSV's format, raters
    ``judge:NAME``); ``manifests`` follow ``judges``."""
    from playsuite.judge.validation import judge_ratings

    table = read_sample(sample)
    frames = [
        judge_ratings(judge, table, [manifest])
        for judge, manifest in zip(judges, manifests, strict=True)
    ]
    ratings = pd.concat(frames, ignore_index=True)
    ratings["level"] = ratings["level"].astype("Int64")
    write_text_atomic(output, ratings.to_csv(index=False))


def agreement_job(ratings: str | None, judges: Sequence[str], out: Mapping[str, str]) -> None:
    """Table 10: agreement of the judges with the human raters.

    Human ratings come from ``ratings`` (analysis.ratings, which may also hold judge rows), the
    validation judges' answers from ``judges`` (the validation stage's rating files). Without
    human ratings the table lists what the judges judged, and a note, at the top of the
    Markdown and in the log, says that ratings are missing.
    """
    from playsuite.analysis.outputs import write_stat_table
    from playsuite.judge.agreement import read_ratings
    from playsuite.judge.validation import validation_agreement

    humans = read_ratings(ratings) if ratings else None
    judged = (
        pd.concat([read_ratings(path) for path in judges], ignore_index=True)
        if judges
        else pd.DataFrame(columns=["video_id", "rater", "level"])
    )
    table, note = validation_agreement(judged, humans)
    caption = (
        "Judge validation: Krippendorff's alpha (interval) on progress levels, share of "
        "rating pairs within one level and equal, and milestone agreement."
    )
    write_stat_table(
        table,
        out["csv"],
        out["md"],
        out["tex"],
        bold=["alpha", "within_one", "exact", "milestone_agreement"],
        caption=caption if note is None else f"{caption} {note}",
        digits=3,
    )
    if note is not None:
        with open(out["md"], encoding="utf-8") as fh:
            write_text_atomic(out["md"], f"{note}\n\n{fh.read()}")
        print(note, file=sys.stderr)
