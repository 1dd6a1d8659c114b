"""The ratings CSV under several raters at once, the rater ids, the questions and the level rule,
and ``playsuite human sample`` (the validation set's sampler)."""

from __future__ import annotations

import contextlib
import multiprocessing
from pathlib import Path

import pandas as pd
import pytest

from playsuite.human.identity import IdentityError, pseudonym, study_secret
from playsuite.human.rate import QUESTION_FIELDS, RatingError, questions, rating_row
from playsuite.judge.agreement import (
    RATING_COLUMNS,
    DuplicateRating,
    add_rating,
    agreement_table,
    read_ratings,
)
from playsuite.judge.schema import BOOLEAN_FIELDS
from playsuite.records.manifest import EpisodeSummary, write_manifest

NOTHING = {**dict.fromkeys(BOOLEAN_FIELDS, False), "distinct_interactions": 0}
NOTHING["death_or_game_over_count"] = 0


def row(video: str, rater: str, level: int = 1) -> dict:
    return {
        "video_id": video,
        "rater": rater,
        "level": level,
        **dict.fromkeys(BOOLEAN_FIELDS, True),
    }


def _rate_many(path: str, rater: str, videos: list[str]) -> None:
    for video in videos:
        with contextlib.suppress(DuplicateRating):
            add_rating(path, row(video, rater))


@pytest.mark.slow
def test_raters_writing_at_once_lose_and_double_nothing(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    videos = [f"v{i:03d}" for i in range(12)]
    context = multiprocessing.get_context("fork")
    # four processes, two per rater: every answer is attempted twice, at the same time
    procs = [
        context.Process(target=_rate_many, args=(str(path), rater, videos))
        for rater in ("r-aaaaaaaaaa", "r-bbbbbbbbbb", "r-aaaaaaaaaa", "r-bbbbbbbbbb")
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    table = read_ratings(path)
    assert list(table.columns) == list(RATING_COLUMNS)
    assert len(table) == 24 and not table.duplicated(["video_id", "rater"]).any()
    with pytest.raises(DuplicateRating):
        add_rating(path, row("v000", "r-aaaaaaaaaa", 3))
    assert agreement_table(table).iloc[0]["raters"] == 2  # what `playsuite agreement` reads


def test_a_foreign_ratings_file_is_not_mixed_with(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text("video_id,rater,level\nv001,alice,2\n")
    with pytest.raises(ValueError, match="columns"):
        add_rating(path, row("v002", "r-aaaaaaaaaa"))
    with pytest.raises(ValueError, match="level"):
        add_rating(tmp_path / "new.csv", row("v002", "r-aaaaaaaaaa", level=7))


def test_pseudonyms_are_stable_per_study_and_name(tmp_path: Path) -> None:
    secret = study_secret(tmp_path / "study.secret")
    assert study_secret(tmp_path / "study.secret") == secret  # created once, then read
    assert (tmp_path / "study.secret").stat().st_mode & 0o777 == 0o600
    alice = pseudonym("Alice  Smith", secret, "r")
    assert alice == pseudonym(" alice smith", secret, "r") and alice.startswith("r-")
    assert alice != pseudonym("Bob", secret, "r")
    assert alice != pseudonym("Alice Smith", study_secret(tmp_path / "other.secret"), "r")
    with pytest.raises(IdentityError):
        pseudonym("  ", secret, "r")


def test_questions_are_the_judges_milestone_fields_and_the_level_is_table_9() -> None:
    asked = questions()
    assert [q["field"] for q in asked] == [f for f in asked_order() if f in QUESTION_FIELDS]
    assert all(q["description"] for q in asked)
    assert rating_row("v1", "r-x", NOTHING)["level"] == 0
    moved = {**NOTHING, "player_control_evident": True, "distinct_interactions": 3}
    assert rating_row("v1", "r-x", moved)["level"] == 1
    assert rating_row("v1", "r-x", {**moved, "new_area_or_level_reached": True})["level"] == 2
    assert rating_row("v1", "r-x", {**NOTHING, "win_or_completion_screen": True})["level"] == 4
    with pytest.raises(RatingError, match="unanswered"):
        rating_row("v1", "r-x", {"gameplay_happened": True})
    with pytest.raises(RatingError):
        rating_row("v1", "r-x", {**NOTHING, "distinct_interactions": 99})


def asked_order() -> list[str]:
    from playsuite.judge.schema import milestone_schema

    return list(milestone_schema()["properties"])


def played(root: Path, corpora: dict[str, int]) -> list[Path]:
    """Play shard manifests of two presets x two conditions per corpus, every episode ``ok``
    with a (stand-in) video."""
    manifests = []
    for corpus, count in corpora.items():
        for preset in ("model-a", "model-b"):
            for condition in ("k0-hz0.33-base", "k3-hz0.33-base"):
                run = root / "results/runs" / corpus / preset / condition
                rows = []
                for g in range(count):
                    episode = run / f"{corpus}-g{g}"
                    episode.mkdir(parents=True)
                    (episode / "episode.mp4").write_bytes(b"video")
                    rows.append(
                        EpisodeSummary(
                            game=episode.name,
                            status="ok",
                            steps=10,
                            frames=100,
                            t_game=30.0,
                            wall_s=40.0,
                            invalid_rate=0.0,
                            episode_dir=str(episode),
                        )
                    )
                write_manifest(run / "shards/s0000.tsv", rows)
                manifests.append(run / "shards/s0000.tsv")
    return manifests


@pytest.mark.slow
def test_human_sample_draws_the_validation_set(tmp_path: Path) -> None:
    from playsuite.cli import main

    manifests = played(tmp_path, {"itch": 4, "pyweek": 2})
    out = tmp_path / "validation"
    code = main(
        ["human", "sample", *map(str, manifests), "--per-corpus", "itch=6", "pyweek=3",
         "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    raters = pd.read_csv(out / "raters.csv")
    assert list(raters.columns) == ["video_id", "video"] and len(raters) == 9
    assert all(Path(v).is_file() for v in raters["video"])
    sample = pd.read_csv(out / "sample.tsv", sep="\t")
    assert sample.groupby("corpus").size().to_dict() == {"itch": 6, "pyweek": 3}
    assert set(sample["preset"]) == {"model-a", "model-b"}
