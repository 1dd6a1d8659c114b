"""meta.json and trace.jsonl through their owner (playsuite.records.episode): what is written reads
back the same, and a file that breaks the contract is refused with its name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from playsuite.records.episode import (
    ADDED_IN_FORMAT,
    META_FORMAT,
    META_NAME,
    META_TYPES,
    OPTIONAL_META,
    TRACE_NAME,
    CorruptEpisode,
    EpisodeError,
    episode_finished,
    read_meta,
    read_trace,
    trace_line,
    video_fps,
    write_meta,
)


def full_meta() -> dict[str, Any]:
    """A meta.json as the harness writes it (every key, in its order)."""
    return {
        "format": META_FORMAT,
        "corpus": "local",
        "game": "probe-a",
        "runtime": "pygame",
        "preset": "random",
        "family": "baseline",
        "parser": "json",
        "template": "default",
        "condition": "k0-hz0.33-base",
        "history_k": 0,
        "hz": 0.33,
        "variant": "base",
        "condition_settings": {"history_k": 0, "hz": 0.33, "variant": "base"},
        "sampling": {"temperature": 0.0, "max_tokens": 512},
        "step_seconds": 3.0,
        "seed": 12,
        "versions": {"playsuite": "0.1"},
        "model": {
            "hf_id": "Qwen/Qwen3-VL-8B-Instruct",
            "revision": "0123abcd",
            "served": "Qwen/Qwen3-VL-8B-Instruct",
            "engine": "vllm",
            "engine_version": "0.32.0",
        },
        "usage": {
            "prompt_tokens": 4000,
            "completion_tokens": 120,
            "total_tokens": 4120,
            "requests": 4,
            "retries": 1,
        },
        "host": "node1",
        "monitored": False,
        "video_fps": 10.0,
        "limits": {"max_steps": 4, "max_game_s": 300.0, "max_frames": None},
        "wall_timeout_s": 3600.0,
        "screen": [640, 480],
        "status": "ok",
        "error": "",
        "stop_reason": "steps",
        "steps": 4,
        "frames": 120,
        "t_game": 12.0,
        "invalid_steps": 1,
        "invalid_rate": 0.25,
        "launch_s": 0.5,
        "model_s": 1.25,
        "wall_s": 9.5,
        "harness_cpu_s": 2.0,
    }


def test_every_key_is_typed_and_the_full_meta_covers_them() -> None:
    assert set(full_meta()) | OPTIONAL_META == set(META_TYPES)


def test_an_episode_from_before_the_condition_settings_still_reads(tmp_path: Path) -> None:
    """``condition_settings`` and ``sampling`` came with format 2: an episode of format 1 lacks
    them and stays valid, a format-2 episode must hold them, and a wrong type is refused."""
    added = {k for k, version in ADDED_IN_FORMAT.items() if version == 2}
    assert added == {"model", "condition_settings", "sampling"}
    old = {k: v for k, v in full_meta().items() if k not in added | {"usage"}} | {"format": 1}
    (tmp_path / META_NAME).write_text(json.dumps(old))
    assert read_meta(tmp_path) == old
    with pytest.raises(CorruptEpisode, match="condition_settings"):
        write_meta(tmp_path, {k: v for k, v in full_meta().items() if k != "condition_settings"})
    with pytest.raises(CorruptEpisode, match="condition_settings"):
        write_meta(tmp_path, {**full_meta(), "condition_settings": "k0"})


def test_meta_round_trip_keeps_keys_order_and_extras(tmp_path: Path) -> None:
    meta = {**full_meta(), "note": "kept"}
    write_meta(tmp_path, meta)
    assert episode_finished(tmp_path)
    back = read_meta(tmp_path)
    assert back == meta
    assert list(back) == list(meta)
    text = (tmp_path / META_NAME).read_text()
    assert text.startswith('{\n  "format": 3,')


def test_writer_refuses_a_meta_that_breaks_the_contract(tmp_path: Path) -> None:
    meta = full_meta()
    del meta["seed"]
    with pytest.raises(CorruptEpisode, match=r"missing keys \['seed'\]"):
        write_meta(tmp_path, meta)
    assert not episode_finished(tmp_path)  # nothing half-right is left


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.pop("status"), r"missing keys \['status'\]"),
        (lambda m: m.update(steps="4"), r"'steps' must be int, not str"),
        (lambda m: m.update(steps=4.0), r"'steps' must be int, not float"),
        (lambda m: m.update(monitored=1), r"'monitored' must be bool, not int"),
        (lambda m: m.update(seed=True), r"'seed' must be int, not bool"),
        (lambda m: m["limits"].update(max_steps="x"), r"limits\.'max_steps' must be int or null"),
        (lambda m: m.update(format=4), r"format 4 is newer than this playsuite reads \(up to 3\)"),
        (lambda m: m.pop("model"), r"missing keys \['model'\]"),
        (lambda m: m.update(model="vllm"), r"'model' must be dict or null, not str"),
        (lambda m: m["model"].pop("revision"), r"model: missing keys \['revision'\]"),
        (lambda m: m["model"].update(engine_version=32), r"model\.'engine_version' must be str"),
        (lambda m: m.update(format="one"), r"format 'one' is not a version number"),
        (lambda m: m.pop("usage"), r"missing keys \['usage'\]"),
        (lambda m: m.update(usage=12), r"'usage' must be dict or null, not int"),
        (lambda m: m["usage"].pop("retries"), r"usage: missing keys \['retries'\]"),
        (lambda m: m["usage"].update(prompt_tokens=1.5), r"usage\.'prompt_tokens' must be int"),
        (lambda m: m["model"].update(endpoint=None), r"model\.'endpoint' must be str"),
    ],
)
def test_reader_names_the_file_and_what_is_wrong(tmp_path: Path, change, message: str) -> None:
    meta = full_meta()
    change(meta)
    file = tmp_path / META_NAME
    file.write_text(json.dumps(meta))
    with pytest.raises(CorruptEpisode, match=message) as caught:
        read_meta(tmp_path)
    assert caught.value.file == file
    assert str(file) in str(caught.value)


def test_damaged_and_absent_meta_are_told_apart(tmp_path: Path) -> None:
    with pytest.raises(EpisodeError, match=r"no meta\.json") as absent:
        read_meta(tmp_path)
    assert not isinstance(absent.value, CorruptEpisode)
    (tmp_path / META_NAME).write_text('{"status": "ok", "ste')
    with pytest.raises(CorruptEpisode, match="not JSON"):
        read_meta(tmp_path)
    (tmp_path / META_NAME).write_text("[1, 2]")
    with pytest.raises(CorruptEpisode, match="must hold a JSON object"):
        read_meta(tmp_path)


def test_a_format_2_meta_reads_without_usage_and_a_hosted_model_names_its_endpoint(
    tmp_path: Path,
) -> None:
    """Format 3 added ``usage`` (null for a baseline) and the model record's ``endpoint``;
    format-2 episodes lack both and still read."""
    assert {k for k, version in ADDED_IN_FORMAT.items() if version == 3} == {"usage"}
    old = {k: v for k, v in full_meta().items() if k != "usage"} | {"format": 2}
    (tmp_path / META_NAME).write_text(json.dumps(old))
    assert read_meta(tmp_path) == old
    write_meta(tmp_path, {**full_meta(), "usage": None, "model": None})
    assert read_meta(tmp_path)["usage"] is None
    hosted = {
        "hf_id": None,
        "revision": None,
        "served": "gpt-4.1-mini",
        "engine": "openai",
        "engine_version": None,
        "endpoint": "https://api.openai.com/v1",
    }
    write_meta(tmp_path, {**full_meta(), "model": hosted})
    assert read_meta(tmp_path)["model"] == hosted


def test_a_format_1_meta_reads_without_the_model_record(tmp_path: Path) -> None:
    """Format 2 added ``model``; episodes recorded before it still read, and a baseline's
    ``model`` is null."""
    old = {**full_meta(), "format": 1}
    del old["model"], old["usage"]
    (tmp_path / META_NAME).write_text(json.dumps(old))
    assert read_meta(tmp_path) == old
    write_meta(tmp_path, {**full_meta(), "model": None})
    assert read_meta(tmp_path)["model"] is None


def test_a_meta_without_format_reads_when_it_says_how_the_episode_ended(tmp_path: Path) -> None:
    """Episodes recorded before ``format`` existed lack keys added since; they still read."""
    legacy = {k: v for k, v in full_meta().items() if k not in ("format", "harness_cpu_s")}
    legacy["error"] = None  # older episodes wrote null for "no error"
    (tmp_path / META_NAME).write_text(json.dumps(legacy))
    assert read_meta(tmp_path) == legacy
    (tmp_path / META_NAME).write_text(json.dumps({"status": "crashed", "fps": 12}))
    assert video_fps(read_meta(tmp_path)) == 12.0  # hand-made episodes name it fps
    (tmp_path / META_NAME).write_text(json.dumps({"steps": 3}))
    with pytest.raises(CorruptEpisode, match=r"missing keys \['status'\]"):
        read_meta(tmp_path)
    (tmp_path / META_NAME).write_text(json.dumps({"status": "ok", "steps": "3"}))
    with pytest.raises(CorruptEpisode, match="'steps' must be int"):
        read_meta(tmp_path)


def test_trace_round_trip_and_damaged_lines(tmp_path: Path) -> None:
    steps = [
        {"step": 0, "t_game": 0.0, "frame": 0, "response": "ü", "actions": [], "invalid": True},
        {"step": 1, "t_game": 3.0, "actions": [{"kind": "key"}], "probes": {"score": None}},
    ]
    (tmp_path / TRACE_NAME).write_text("".join(trace_line(s) for s in steps) + "\n")
    assert read_trace(tmp_path) == steps
    assert read_trace(tmp_path / "nowhere") == []  # no trace: no steps
    for line, message in [
        ('{"step": 2, "t_game": \n', "line 3: not JSON"),
        ("[1]\n", "line 3: a trace line must be a JSON object"),
        ('{"step": 2}\n', "line 3: missing field 't_game'"),
        ('{"t_game": 1, "actions": [1]}\n', "line 3: 'actions' must be a list of objects"),
        ('{"t_game": 1, "probes": [1]}\n', "line 3: 'probes' must be dict or null"),
        ('{"t_game": "1"}\n', "line 3: 't_game' must be int or float, not str"),
    ]:
        (tmp_path / TRACE_NAME).write_text("".join(trace_line(s) for s in steps) + line)
        with pytest.raises(CorruptEpisode, match=message) as caught:
            read_trace(tmp_path)
        assert caught.value.file == tmp_path / TRACE_NAME
