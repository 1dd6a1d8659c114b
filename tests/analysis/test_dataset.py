"""The dataset export on synthetic episodes (real H.264 videos written by the harness's own
recorder): what `datasets.load_dataset` reads back, the card, and the episodes it cannot export."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from playsuite.analysis.dataset import (
    TABLES,
    EpisodeSource,
    ExportOptions,
    export_dataset,
    find_episodes,
    load_scores_sources,
)
from playsuite.cli import main
from playsuite.judge.levels import progress_level
from playsuite.judge.result import empty_milestones, failed, judgement, write_judgement
from playsuite.judge.video import fit_size, sample_video
from playsuite.records.episode import read_trace, trace_line, write_meta
from playsuite.records.scores import scores_frame, write_scores
from playsuite.testing.synthetic_episode import Script, idle_script, write_episode

COND = "k0-hz0.33-base"
PLAYED = Script(
    seconds=9.0,
    steps={
        0.0: [{"kind": "wait"}],
        3.0: [{"kind": "key", "keys": ["enter"]}],
        6.0: [{"kind": "hold", "keys": ["right"], "seconds": 2.0}],
    },
)


def milestones() -> dict:
    m = empty_milestones()
    m.update(gameplay_happened=True, menu_or_title_seen=True, left_menu_into_gameplay=True)
    m.update(player_control_evident=True, distinct_interactions=2)
    m["milestones"] = [
        {"t_sec": 1.0, "field": "menu_or_title_seen", "on_screen": "a blue title screen"},
        {"t_sec": 4.0, "field": "left_menu_into_gameplay", "on_screen": "a green field"},
    ]
    return m


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """runs/ and judgements/frame/ of a small campaign: a judged episode, an idle one, one whose
    judge failed, one with a damaged video, one with a damaged judgement, one damaged meta.json."""
    root = tmp_path_factory.mktemp("campaign")
    runs, judged = root / "runs" / "local", root / "judgements" / "frame" / "local"
    write_episode(runs / "random" / COND / "tiny-a", PLAYED, corpus="local", game="tiny-a")
    write_episode(runs / "explorer" / COND / "tiny-a", idle_script(4.0), preset="explorer")
    write_episode(runs / "random" / COND / "tiny-b", idle_script(3.0))
    broken_video = write_episode(runs / "random" / COND / "tiny-c", idle_script(3.0))
    (broken_video / "episode.mp4").write_bytes(b"not a video at all")
    write_episode(runs / "explorer" / COND / "tiny-b", idle_script(3.0))
    broken = runs / "explorer" / COND / "tiny-d"
    broken.mkdir(parents=True)
    (broken / "meta.json").write_text('{"status": "ok", "steps": ')
    write_judgement(judged / "random" / COND / "tiny-a.json", judgement(milestones(), "frame"))
    write_judgement(
        judged / "random" / COND / "tiny-b.json", failed("frame", "failed", "no valid answer")
    )
    (judged / "explorer" / COND).mkdir(parents=True)
    (judged / "explorer" / COND / "tiny-b.json").write_text("{not json")
    return root


@pytest.fixture(scope="module")
def exported(campaign: Path, tmp_path_factory: pytest.TempPathFactory):
    sources = [
        EpisodeSource(path, campaign / "judgements" / "frame")
        for path in find_episodes(campaign / "runs")
    ]
    out = tmp_path_factory.mktemp("export") / "dataset"
    return export_dataset(sources, out), out


def load(out: Path, table: str, cache: Path):
    import datasets

    return datasets.load_dataset(
        "parquet",
        data_files={"train": str(out / table / "*.parquet")},
        split="train",
        cache_dir=str(cache),
    )


@pytest.mark.slow
def test_frames_are_the_judges_samples(exported, campaign: Path, tmp_path: Path) -> None:
    summary, out = exported
    frames = load(out, "frames", tmp_path)
    assert frames.features["image"].__class__.__name__ == "Image"
    ep = campaign / "runs/local/random" / COND / "tiny-a"
    rows = frames.filter(lambda r: r["episode_id"] == f"local/random/{COND}/tiny-a")
    sampled = sample_video(ep / "episode.mp4")
    assert len(rows) == len(sampled) == 9
    assert rows["t"] == pytest.approx(list(sampled.times))
    for row, frame in zip(rows, sampled.frames, strict=True):
        image = row["image"]  # decoded by datasets
        assert image.size == fit_size(640, 480) == (384, 288)
        diff = np.abs(np.asarray(image.convert("RGB"), np.int16) - frame.astype(np.int16))
        assert diff.mean() < 3  # JPEG at quality 90 of the very same picture
    # the step in force: a step at exactly t saw that picture
    assert rows["step"] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert set(rows["level"]) == {progress_level(milestones())}
    assert summary.rows["frames"] == len(frames) == 9 + 4 + 3 + 3  # tiny-c's video is damaged


@pytest.mark.slow
def test_steps_carry_the_trace(exported, campaign: Path, tmp_path: Path) -> None:
    _, out = exported
    steps = load(out, "steps", tmp_path)
    for preset, game in (("random", "tiny-a"), ("explorer", "tiny-a"), ("random", "tiny-b")):
        trace = read_trace(campaign / "runs/local" / preset / COND / game)
        rows = steps.filter(lambda r, p=preset, g=game: r["episode_id"] == f"local/{p}/{COND}/{g}")
        assert [json.loads(r["actions"]) for r in rows] == [s["actions"] for s in trace]
        assert rows["response"] == [s["response"] for s in trace]
        assert rows["t_game"] == [s["t_game"] for s in trace]
        assert [json.loads(r["probes"]) for r in rows] == [s["probes"] for s in trace]
    tiny_a = steps.filter(lambda r: r["episode_id"] == f"local/random/{COND}/tiny-a")
    assert tiny_a["sample"] == [0, 3, 6]  # the judge frame showing each step's moment


@pytest.mark.slow
def test_episodes_carry_meta_and_verdicts(exported, tmp_path: Path) -> None:
    summary, out = exported
    episodes = {r["episode_id"]: r for r in load(out, "episodes", tmp_path)}
    assert summary.episodes == len(episodes) == 5
    a = episodes[f"local/random/{COND}/tiny-a"]
    key = (a["corpus"], a["game"], a["preset"], a["condition"])
    assert key == ("local", "tiny-a", "random", COND)
    assert (a["status"], a["seed"], a["steps"], a["samples"]) == ("ok", 0, 3, 9)
    assert (a["history_k"], a["hz"], a["variant"]) == (0, 0.33, "base")  # from the name
    assert (a["judge"], a["judge_status"], a["level"]) == ("frame", "ok", 1)
    assert a["level_name"] == "interaction"
    assert [m["t_sec"] for m in json.loads(a["milestones"])] == [1.0, 4.0]
    assert json.loads(a["meta"])["frames"] == 90
    b = episodes[f"local/random/{COND}/tiny-b"]
    assert (b["judge_status"], b["level"], b["milestones"]) == ("failed", None, None)
    assert json.loads(b["judgement"])["error"] == "no valid answer"
    assert episodes[f"local/explorer/{COND}/tiny-a"]["judge_status"] is None  # never judged
    unreadable = episodes[f"local/explorer/{COND}/tiny-b"]
    assert unreadable["judge_status"] == "unreadable" and unreadable["level"] is None
    assert "tiny-b.json" in json.loads(unreadable["judgement"])["error"]
    c = episodes[f"local/random/{COND}/tiny-c"]
    assert c["samples"] == 0 and "cannot" in c["video_error"]
    assert summary.video_errors == 1 and summary.judged == 1
    assert [Path(p).name for p, _ in summary.left_out] == ["tiny-d"]
    assert "not JSON" in summary.left_out[0][1]


@pytest.mark.slow
def test_the_card_describes_every_table(exported, tmp_path: Path) -> None:
    import datasets

    summary, out = exported
    text = (out / "README.md").read_text()
    _, header, body = text.split("---\n", 2)
    meta = yaml.safe_load(header)
    assert meta["license"] == "other" and meta["size_categories"] == ["n<1K"]
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert list(configs) == ["frames", "steps", "episodes"] and configs["frames"]["default"]
    for info in meta["dataset_info"]:
        name = info["config_name"]
        assert [f["name"] for f in info["features"]] == [c.name for c in TABLES[name]]
        assert info["splits"][0]["num_examples"] == summary.rows[name]
        for column in TABLES[name]:
            assert f"| `{column.name}` |" in body
    assert "tiny-d" in body and "1 frame per second" in body and "## Licence" in body
    # the card's configs are what `load_dataset(folder, config)` follows
    steps = datasets.load_dataset(str(out), "steps", split="train", cache_dir=str(tmp_path))
    assert len(steps) == summary.rows["steps"]
    frames = datasets.load_dataset(str(out), split="train", cache_dir=str(tmp_path))
    assert "image" in frames.features  # the default config


@pytest.mark.slow
def test_png_frames_are_the_samples_exactly(campaign: Path, tmp_path: Path) -> None:
    ep = campaign / "runs/local/random" / COND / "tiny-a"
    export_dataset([EpisodeSource(ep)], tmp_path / "ds", ExportOptions(image_format="png"))
    frames = load(tmp_path / "ds", "frames", tmp_path / "cache")
    sampled = sample_video(ep / "episode.mp4")
    for row, frame in zip(frames, sampled.frames, strict=True):
        assert np.array_equal(np.asarray(row["image"].convert("RGB")), frame)
    assert frames["level"] == [None] * 9  # no judgements given


@pytest.mark.slow
def test_scores_table_gives_the_campaign_and_genres(campaign: Path, tmp_path: Path) -> None:
    rows = [
        {"corpus": "local", "preset": "random", "family": "baseline", "condition": COND,
         "history_k": 0, "hz": 0.33, "variant": "base", "game": game, "genre": genre,
         "judge": "frame", "level": level, "status": status}
        for game, genre, level, status in (
            ("tiny-a", "Puzzle", 1, "ok"),
            ("tiny-b", "", None, "judge_failed"),
            ("tiny-z", "Action", None, "missing_episode"),
        )
    ]  # fmt: skip
    table = tmp_path / "frame.tsv"
    write_scores(scores_frame(rows), table)
    sources = load_scores_sources(table, campaign / "runs", campaign / "judgements" / "frame")
    summary = export_dataset(sources, tmp_path / "ds")
    episodes = pd.read_parquet(tmp_path / "ds" / "episodes")
    genres = dict(zip(episodes["game"], episodes["genre"], strict=True))
    assert genres["tiny-a"] == "Puzzle" and pd.isna(genres["tiny-b"])  # "" in the table: unknown
    assert [Path(p).name for p, _ in summary.left_out] == ["tiny-z"]
    assert "no meta.json" in summary.left_out[0][1]


def videoless_episode(path: Path) -> Path:
    """An episode that never showed a frame (a launch failure): meta.json and one trace line."""
    path.mkdir(parents=True)
    write_meta(path, {"status": "launch_failed", "error": "no window", "frames": 0, "steps": 1})
    step = {"step": 0, "t_game": 0.0, "response": "wait", "actions": [{"kind": "wait"}]}
    (path / "trace.jsonl").write_text(trace_line(step))
    return path


def test_an_episode_without_video_has_steps_but_no_frames(tmp_path: Path) -> None:
    ep = videoless_episode(tmp_path / "runs/local/random" / COND / "g")
    summary = export_dataset([EpisodeSource(ep)], tmp_path / "ds")
    assert summary.rows == {"frames": 0, "steps": 1, "episodes": 1}
    # datasets cannot load a split without rows: no frames file, no frames config
    assert not (tmp_path / "ds" / "frames").exists()
    header = yaml.safe_load((tmp_path / "ds" / "README.md").read_text().split("---\n")[1])
    assert [c["config_name"] for c in header["configs"]] == ["steps", "episodes"]
    assert header["configs"][0]["default"] is True
    episodes = pd.read_parquet(tmp_path / "ds" / "episodes")
    assert episodes["status"].tolist() == ["launch_failed"]
    assert episodes["samples"].tolist() == [0] and episodes["video_error"].isna().all()
    steps = pd.read_parquet(tmp_path / "ds" / "steps")
    assert steps["sample"].isna().all()  # no judge frame to point at


def test_a_failed_export_leaves_the_old_dataset(tmp_path: Path) -> None:
    ep = videoless_episode(tmp_path / "runs/local/random" / COND / "g")
    out = tmp_path / "ds"
    export_dataset([EpisodeSource(ep)], out)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    with pytest.raises(ValueError, match=f"two episodes are both local/random/{COND}/g"):
        export_dataset([EpisodeSource(ep), EpisodeSource(ep)], out)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "runs"]  # no partial folder


def test_nothing_readable_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="nothing to export: 0 episodes"):
        export_dataset([], tmp_path / "ds")
    with pytest.raises(ValueError, match=r"1 episodes given, none readable .*no meta\.json"):
        export_dataset([EpisodeSource(tmp_path / "gone")], tmp_path / "ds")
    assert not (tmp_path / "ds").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"image_format": "gif"}, "image format"),
        ({"jpeg_quality": 0}, "JPEG quality"),
        ({"shard_bytes": 0}, "shard size"),
    ],
)
def test_bad_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ExportOptions(**options)


@pytest.mark.slow
def test_small_shards_split_a_table_into_files(campaign: Path, tmp_path: Path) -> None:
    sources = [EpisodeSource(p) for p in find_episodes(campaign / "runs" / "local" / "random")]
    import playsuite.analysis.dataset as ds

    old = ds.ROW_GROUP_BYTES
    ds.ROW_GROUP_BYTES = 1  # a row group per row
    try:
        export_dataset(sources, tmp_path / "ds", ExportOptions(shard_bytes=1))
    finally:
        ds.ROW_GROUP_BYTES = old
    files = sorted((tmp_path / "ds" / "frames").glob("*.parquet"))
    assert len(files) == 9 + 3 > 1  # tiny-a and tiny-b; tiny-c has no frames
    assert len(load(tmp_path / "ds", "frames", tmp_path / "cache")) == 12


@pytest.mark.slow
def test_command_line(campaign: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "ds"
    runs = str(campaign / "runs" / "local" / "random")
    judgements = str(campaign / "judgements" / "frame")
    assert main(["export-dataset", str(out), runs, "--judgements", judgements]) == 0
    assert "3 episodes ->" in capsys.readouterr().out
    levels = pd.read_parquet(out / "episodes")["level"]
    assert levels.iloc[0] == 1 and levels.iloc[1:].isna().all()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["runs", "--scores", "x.tsv"], "not both"),
        ([], "nothing to export"),
        (["nowhere"], "no such folder"),
        (["--scores", "nowhere.tsv"], "scores table not found"),
    ],
)
def test_command_line_errors(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["export-dataset", str(tmp_path / "ds"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "ds").exists()


def test_a_hosted_models_episode_names_the_endpoints_model(tmp_path: Path) -> None:
    """A hosted preset's model record has no Hugging Face id: the endpoint's model name is kept."""
    ep = videoless_episode(tmp_path / "runs/local/gpt" / COND / "g")
    meta = json.loads((ep / "meta.json").read_text())
    meta["model"] = {
        "hf_id": None,
        "revision": None,
        "served": "gpt-4.1-mini",
        "engine": "openai",
        "engine_version": None,
        "endpoint": "https://api.example.org/v1",
    }
    write_meta(ep, meta)
    export_dataset([EpisodeSource(ep)], tmp_path / "ds")
    assert pd.read_parquet(tmp_path / "ds" / "episodes")["model"].tolist() == ["gpt-4.1-mini"]
