"""The TSV contracts through their owners (playsuite.records.costs, .manifest, .scores): round
trips, the ``format`` column, older files without it, and refusals that name the file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from playsuite.records.base import RecordError
from playsuite.records.costs import (
    COLUMNS,
    COSTS_FORMAT,
    JUDGE_COLUMNS,
    read_cost_folder,
    read_cost_record,
    write_cost_record,
)
from playsuite.records.manifest import (
    MANIFEST_FORMAT,
    EpisodeSummary,
    JudgedEpisode,
    judged_episode,
    manifest_episodes,
    read_judge_manifest,
    read_manifest,
    write_judge_manifest,
    write_manifest,
)
from playsuite.records.scores import (
    COLUMNS as SCORE_COLUMNS,
)
from playsuite.records.scores import (
    SCORES_FORMAT,
    ScoresError,
    read_scores_file,
    scores_frame,
    write_scores,
)

PLAY_ROW = {
    "corpus": "itch",
    "preset": "random",
    "condition": "k0-hz0.33-base",
    "shard": "s0000",
    "wall_s": "12.500",
    "gpus": 1,
    "status": "ok",
    "slurm_job_id": "",
}


# -- cost records ---------------------------------------------------------------------------


def test_cost_record_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "costs" / "s0000.1-2.tsv"
    write_cost_record(path, PLAY_ROW)
    lines = path.read_text().splitlines()
    assert lines[0].split("\t") == [*COLUMNS, "format"]
    assert lines[1].split("\t")[-1] == str(COSTS_FORMAT)
    (row,) = read_cost_record(path).to_dict("records")
    assert "format" not in row
    assert row["wall_s"] == 12.5 and row["gpus"] == 1 and row["status"] == "ok"
    judge = {**PLAY_ROW, "judge": "frame", "prefetch": "", "max_num_batched_tokens": 8192}
    write_cost_record(tmp_path / "costs" / "judge" / "j.tsv", judge, JUDGE_COLUMNS)
    both = read_cost_folder(tmp_path / "costs")
    assert len(both) == 2 and set(JUDGE_COLUMNS) <= set(both.columns)


def test_cost_record_without_format_or_job_id_reads(tmp_path: Path) -> None:
    path = tmp_path / "old.tsv"
    path.write_text(
        "corpus\tpreset\tcondition\tshard\twall_s\tgpus\tstatus\nitch\tr\tk0\ts0\t5\t0\tok\n"
    )
    (row,) = read_cost_record(path).to_dict("records")
    assert row["wall_s"] == 5 and row["preset"] == "r"
    assert list(read_cost_folder(tmp_path / "none").columns) == [c for c in COLUMNS[:-1]]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("corpus\tpreset\nitch\tr\n", "missing columns"),
        (
            "\t".join([*COLUMNS[:4], "wall_s", "gpus", "status"]) + "\nc\tp\tk\ts\t-1\t0\tok\n",
            "wall_s must be a number >= 0",
        ),
        (
            "\t".join([*COLUMNS, "format"]) + "\nc\tp\tk\ts\t1\t0\tok\t\t2\n",
            "cost record format 2 is newer",
        ),
    ],
)
def test_bad_cost_records_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(text)
    with pytest.raises(RecordError, match=message) as caught:
        read_cost_folder(tmp_path)
    assert caught.value.file == path


# -- shard manifests -------------------------------------------------------------------------


def test_play_manifest_round_trip(tmp_path: Path) -> None:
    rows = [
        EpisodeSummary("b", "crashed", 2, 30, 3.0, 4.5, 0.5, str(tmp_path / "b"), "boom\n\tline"),
        EpisodeSummary("a", "ok", 4, 120, 12.0, 9.25, 0.0, str(tmp_path / "a")),
    ]
    path = tmp_path / "shards" / "s0000.tsv"
    write_manifest(path, rows)
    assert path.read_text().splitlines()[0].endswith("\terror\tformat")
    back = read_manifest(path)
    assert [r.game for r in back] == ["a", "b"]  # in game order
    assert back[1] == EpisodeSummary(
        "b", "crashed", 2, 30, 3.0, 4.5, 0.5, rows[0].episode_dir, "boom line"
    )
    assert manifest_episodes(path) == [rows[1].episode_dir, rows[0].episode_dir]


def test_summary_from_meta() -> None:
    meta = {
        "status": "timeout",
        "steps": 3,
        "frames": 9,
        "t_game": 0.9,
        "wall_s": 60.0,
        "invalid_rate": 0.0,
        "error": None,
    }
    row = EpisodeSummary.from_meta("g", meta, "/runs/g")
    assert row == EpisodeSummary("g", "timeout", 3, 9, 0.9, 60.0, 0.0, "/runs/g", "")


def test_older_play_manifests_read(tmp_path: Path) -> None:
    path = tmp_path / "run" / "shards" / "s0000.tsv"
    path.parent.mkdir(parents=True)
    path.write_text(
        "game\tstatus\tsteps\tframes\tt_game\twall_s\tinvalid_rate\tepisode_dir\n"
        "a\tok\t1\t2\t0.2\t1.0\t0.0\t/x/a\n"
    )
    (row,) = read_manifest(path)
    assert row.error == "" and row.steps == 1
    path.write_text("game\tstatus\tepisode_dir\na\tok\t\n")  # only game is needed for the dirs
    assert manifest_episodes(path) == [str(tmp_path / "run" / "a")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("game\tstatus\na\tok\n", "play shard manifest: missing columns"),
        (
            "game\tstatus\tsteps\tframes\tt_game\twall_s\tinvalid_rate\tepisode_dir\n"
            "a\tok\tfour\t2\t0.2\t1.0\t0.0\t/x/a\n",
            "column 'steps' must be int, not 'four'",
        ),
        (
            "game\tstatus\tsteps\tframes\tt_game\twall_s\tinvalid_rate\tepisode_dir\na\tok\t4\t2\n",
            "line 2 has not one cell per column",
        ),
        (
            "game\tstatus\tsteps\tframes\tt_game\twall_s\tinvalid_rate\tepisode_dir\tformat\n"
            "a\tok\t1\t2\t0.2\t1.0\t0.0\t/x/a\t9\n",
            "format 9 is newer",
        ),
    ],
)
def test_bad_play_manifests_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "s0000.tsv"
    path.write_text(text)
    with pytest.raises(RecordError, match=message) as caught:
        read_manifest(path)
    assert caught.value.file == path


def test_judge_manifest_round_trip_and_checks(tmp_path: Path) -> None:
    rows = [
        judged_episode(tmp_path / "runs/a", tmp_path / "j/a.json", {"status": "ok", "level": 2}),
        judged_episode(
            tmp_path / "runs/b", tmp_path / "j/b.json", {"status": "failed", "error": "no\nanswer"}
        ),
    ]
    assert rows[1] == JudgedEpisode(
        "b", "failed", "", str(tmp_path / "j/b.json"), str(tmp_path / "runs/b"), "no answer"
    )
    path = tmp_path / "j" / "shards" / "s0000.tsv"
    write_judge_manifest(path, rows)
    back = read_judge_manifest(path)
    assert [r["level"] for r in back] == ["2", ""]
    assert back[0]["judgement"] == str(tmp_path / "j/a.json") and "format" not in back[0]
    text = path.read_text().replace("\t2\t", "\ttwo\t")
    path.write_text(text)
    with pytest.raises(RecordError, match="column 'level' must be int"):
        read_judge_manifest(path)
    assert MANIFEST_FORMAT == 1


# -- scores table ----------------------------------------------------------------------------


def score(game: str, level: int | None, status: str = "ok") -> dict:
    return {
        "corpus": "local",
        "preset": "random",
        "family": "baseline",
        "condition": "k0-hz0.33-base",
        "history_k": 0,
        "hz": 0.33,
        "variant": "base",
        "game": game,
        "genre": None,
        "judge": "frame",
        "level": level,
        "status": status,
    }


def test_scores_round_trip(tmp_path: Path) -> None:
    df = scores_frame([score("b", None, "crashed"), score("a", 3)])
    path = tmp_path / "frame.tsv"
    write_scores(df, path)
    header = path.read_text().splitlines()[0].split("\t")
    assert header == [*SCORE_COLUMNS, "format"]
    back = read_scores_file(path)
    assert tuple(back.columns) == SCORE_COLUMNS
    assert back["game"].tolist() == ["a", "b"] and back.at[0, "level"] == 3
    assert pd.isna(back.at[1, "level"]) and back.at[1, "genre"] == ""
    # A table made elsewhere, without the format column, reads the same.
    df.to_csv(tmp_path / "made.csv", index=False)
    assert read_scores_file(tmp_path / "made.csv").equals(back)


def test_scores_of_unknown_format_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "frame.tsv"
    write_scores(scores_frame([score("a", 3)]), path)
    path.write_text(path.read_text().replace(f"\t{SCORES_FORMAT}\n", "\t7\n"))
    with pytest.raises(ScoresError, match="scores table format 7 is newer") as caught:
        read_scores_file(path)
    assert caught.value.file == path


def test_scores_with_a_bad_level_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "frame.tsv"
    write_scores(scores_frame([score("a", 3)]), path)
    path.write_text(path.read_text().replace("\t3\tok", "\t7\tok"))
    with pytest.raises(ScoresError, match=r"frame\.tsv: 1 ok rows have a level outside 0\.\.4"):
        read_scores_file(path)
