"""The judge-validation set (Table 10): sampling, blinding, judge rating rows, agreement table."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from playsuite.config import ConfigError
from playsuite.judge.agreement import read_ratings
from playsuite.judge.result import failed, judgement, write_judgement
from playsuite.judge.schema import BOOLEAN_FIELDS
from playsuite.judge.validation import (
    NO_RATINGS,
    RATER_COLUMNS,
    candidates,
    draw_sample,
    judge_ratings,
    read_sample,
    validation_agreement,
    validation_settings,
    write_validation_set,
)
from playsuite.records.manifest import JUDGE_COLUMNS as MANIFEST_COLUMNS
from playsuite.records.manifest import EpisodeSummary, write_manifest

PRESETS = [f"model-{i:02d}" for i in range(14)]
CONDITIONS = ["k0-hz0.33-base", "k3-hz0.33-base"]


def play_runs(root: Path, games: dict[str, int]) -> list[Path]:
    """Play manifests of 14 presets x 2 conditions per corpus, with a few invalid episodes:
    game g0 of model-00 crashed, and g1 of model-01 has an empty video."""
    manifests = []
    for corpus, count in games.items():
        for preset in PRESETS:
            for condition in CONDITIONS:
                run = root / "results/runs" / corpus / preset / condition
                rows = []
                for g in range(count):
                    game = f"{corpus}-g{g}"
                    episode = run / game
                    episode.mkdir(parents=True)
                    bad_status = preset == "model-00" and g == 0
                    empty = preset == "model-01" and g == 1
                    video = b"" if empty else f"{corpus}/{preset}/{condition}/{game}".encode()
                    (episode / "episode.mp4").write_bytes(video)
                    rows.append(
                        EpisodeSummary(
                            game=game,
                            status="crashed" if bad_status else "ok",
                            steps=10,
                            frames=100,
                            t_game=30.0,
                            wall_s=40.0,
                            invalid_rate=0.0,
                            episode_dir=str(episode),
                        )
                    )
                manifest = run / "shards/s0000.tsv"
                write_manifest(manifest, rows)
                manifests.append(manifest)
    return manifests


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory):
    return candidates(play_runs(tmp_path_factory.mktemp("val"), {"itch": 4, "pyweek": 2}))


def test_only_valid_episodes_are_candidates(pool) -> None:
    # per corpus and condition: model-00's g0 crashed, model-01's g1 has an empty video
    assert len(pool) == 14 * 2 * 6 - 2 * 2 * 2
    assert not any(c.preset == "model-00" and c.game.endswith("-g0") for c in pool)
    assert not any(c.preset == "model-01" and c.game.endswith("-g1") for c in pool)


def test_counts_and_strata(pool) -> None:
    sample, short = draw_sample(pool, {"itch": 45, "pyweek": 15}, seed=0)
    assert short == {}
    assert sample["corpus"].value_counts().to_dict() == {"itch": 45, "pyweek": 15}
    assert not sample["episode_dir"].duplicated().any()
    itch = sample[sample["corpus"] == "itch"]
    # 45 >= 28 strata: every preset under both history conditions
    assert len(itch.groupby(["preset", "condition"])) == 28
    assert itch.groupby("preset").size().between(3, 4).all()  # spread evenly: 45 = 14 * 3 + 3
    pyweek = sample[sample["corpus"] == "pyweek"]
    assert pyweek["preset"].nunique() == 14  # 15 >= 14: every preset once before any twice
    counts = pyweek["condition"].value_counts()
    assert set(counts.index) == set(CONDITIONS) and abs(counts.iloc[0] - counts.iloc[1]) <= 1


def test_draw_is_deterministic_and_seeded(pool) -> None:
    first, _ = draw_sample(pool, {"itch": 45, "pyweek": 15}, seed=3)
    again, _ = draw_sample(list(reversed(pool)), {"itch": 45, "pyweek": 15}, seed=3)
    other, _ = draw_sample(pool, {"itch": 45, "pyweek": 15}, seed=4)
    pd.testing.assert_frame_equal(first, again)
    assert not first.equals(other)


def test_short_corpus_takes_every_valid_episode(pool) -> None:
    sample, short = draw_sample(pool, {"pyweek": 100}, seed=0)
    assert len(sample) == 14 * 2 * 2 - 4 and short == {"pyweek": 100 - len(sample)}


def test_raters_see_only_blinded_ids(pool, tmp_path: Path) -> None:
    sample, _ = draw_sample(pool, {"itch": 45, "pyweek": 15}, seed=0)
    assert list(sample["video_id"]) == [f"v{i:03d}" for i in range(1, 61)]
    # ids are not handed out by corpus or preset
    assert sample["corpus"].iloc[:45].nunique() == 2
    assert not sample["preset"].is_monotonic_increasing
    out = tmp_path / "validation"
    write_validation_set(sample, out / "sample.tsv", out / "raters.csv", out / "videos")
    raters = pd.read_csv(out / "raters.csv", dtype=str)
    assert list(raters.columns) == list(RATER_COLUMNS)
    text = (out / "raters.csv").read_text()
    for word in [*PRESETS, *CONDITIONS, "itch", "pyweek"]:
        assert word not in text
    key = read_sample(out / "sample.tsv")
    pd.testing.assert_frame_equal(key, sample.astype(str))
    for row in key.itertuples():
        copy = out / "videos" / f"{row.video_id}.mp4"
        assert copy.read_bytes() == (Path(row.episode_dir) / "episode.mp4").read_bytes()


def test_settings_default_and_refusals() -> None:
    config = {"corpora": {"itch": {}, "pyweek": {}}, "conditions": CONDITIONS, "seed": 7}
    assert validation_settings(config) is None
    s = validation_settings({**config, "validation": {"judges": ["qwen3.5-9b"]}})
    assert s.per_corpus == {"itch": 45, "pyweek": 15} and s.seed == 7
    assert s.conditions == ("k0-hz0.33-base", "k3-hz0.33-base")
    with pytest.raises(ConfigError, match="local"):
        validation_settings({**config, "validation": {"judges": ["a"], "per_corpus": {"local": 2}}})
    with pytest.raises(ConfigError, match="k5"):
        validation_settings(
            {**config, "validation": {"judges": ["a"], "conditions": ["k5-hz1-base"]}}
        )


# --- judge rating rows and the agreement table, on a crafted set of three videos -------------

MILESTONES = {
    # v001: nothing seen (level 0)
    "v001": {},
    # v002: play, control and a score increase (level 2)
    "v002": {
        "gameplay_happened": True,
        "player_control_evident": True,
        "score_or_resource_increased": True,
        "distinct_interactions": 3,
    },
}
HUMANS = {  # rater -> video -> (level, fields that are true)
    "h1": {
        "v001": (0, []),
        "v002": (
            3,
            [
                "gameplay_happened",
                "player_control_evident",
                "score_or_resource_increased",
                "new_area_or_level_reached",
            ],
        ),
        "v003": (1, ["player_control_evident"]),
    },
    "h2": {
        "v001": (1, ["player_control_evident"]),
        "v002": (2, ["gameplay_happened", "player_control_evident", "score_or_resource_increased"]),
        "v003": (4, ["win_or_completion_screen"]),
    },
}


def judged_set(tmp_path: Path) -> tuple[pd.DataFrame, Path]:
    """A sample of three episodes and the 'frame' judge's manifest: v003's judgement failed."""
    sample = pd.DataFrame(
        {
            "video_id": ["v001", "v002", "v003"],
            "corpus": "itch",
            "preset": ["a", "b", "a"],
            "condition": "k0-hz0.33-base",
            "game": ["g1", "g1", "g2"],
            "episode_dir": [
                f"results/runs/itch/{p}/k0-hz0.33-base/{g}"
                for p, g in (("a", "g1"), ("b", "g1"), ("a", "g2"))
            ],
        }
    )
    manifest = tmp_path / "manifest.tsv"
    with open(manifest, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t")
        writer.writerow(MANIFEST_COLUMNS)
        for row in sample.itertuples():
            path = tmp_path / f"{row.video_id}.json"
            if row.video_id in MILESTONES:
                fields = dict.fromkeys(BOOLEAN_FIELDS, False)
                fields.update(distinct_interactions=0, death_or_game_over_count=0, milestones=[])
                fields.update(MILESTONES[row.video_id])
                obj = judgement(fields, "frame")
            else:
                obj = failed("frame", "failed", "no valid answer")
            write_judgement(path, obj)
            writer.writerow(
                [row.game, obj["status"], obj.get("level", ""), path, row.episode_dir, ""]
            )
    return sample, manifest


def human_csv(tmp_path: Path) -> Path:
    rows = []
    for rater, videos in HUMANS.items():
        for video, (level, true) in videos.items():
            rows.append(
                {
                    "video_id": video,
                    "rater": rater,
                    "level": level,
                    **{f: str(f in true).lower() for f in BOOLEAN_FIELDS},
                }
            )
    path = tmp_path / "ratings.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_judge_rating_rows(tmp_path: Path) -> None:
    sample, manifest = judged_set(tmp_path)
    rows = judge_ratings("frame", sample, [manifest]).set_index("video_id")
    assert list(rows["rater"].unique()) == ["judge:frame"]
    assert rows.loc["v001", "level"] == 0 and rows.loc["v002", "level"] == 2
    assert pd.isna(rows.loc["v003", "level"]) and rows.loc["v003", BOOLEAN_FIELDS].isna().all()
    assert rows.loc["v002", "score_or_resource_increased"] is True


def test_agreement_table_hand_computed(tmp_path: Path) -> None:
    sample, manifest = judged_set(tmp_path)
    ratings = tmp_path / "judges.csv"
    judge_ratings("frame", sample, [manifest]).to_csv(ratings, index=False)
    table, note = validation_agreement(read_ratings(ratings), read_ratings(human_csv(tmp_path)))
    assert note is None
    t = table.set_index("comparison")
    humans, judge = t.loc["human-human"], t.loc["frame-human"]
    # humans: level pairs (0,1) (3,2) (1,4); alpha over units [0,1] [3,2] [1,4]:
    # D_o = 22/6, D_e = 130/30 -> 1 - (22/6)/(13/3) = 2/13
    assert humans["pairs"] == 3 and humans["videos"] == 3
    assert humans["alpha"] == pytest.approx(2 / 13)
    assert humans["within_one"] == pytest.approx(2 / 3) and humans["exact"] == 0
    assert humans["milestone_agreement"] == pytest.approx((8 + 8 + 7) / 27)
    # the judge (no level on v003) as third rater: units [0,1,0] [3,2,2] [1,4]:
    # D_o = 22/8, D_e = 222/56 -> alpha = 34/111
    assert judge["raters"] == 3 and judge["videos"] == 2 and judge["pairs"] == 4
    assert judge["alpha"] == pytest.approx(34 / 111)
    assert judge["within_one"] == 1.0 and judge["exact"] == 0.5
    assert judge["milestone_agreement"] == pytest.approx((9 + 8 + 8 + 9) / 36)


def test_without_ratings_the_table_says_so(tmp_path: Path) -> None:
    sample, manifest = judged_set(tmp_path)
    table, note = validation_agreement(judge_ratings("frame", sample, [manifest]), None)
    assert note == NO_RATINGS
    t = table.set_index("comparison")
    assert t.loc["frame-human", "videos"] == 2 and t.loc["frame-human", "pairs"] == 0
    assert t[["alpha", "within_one", "milestone_agreement"]].isna().all().all()
