"""The Video-LLM judge against the stand-in vLLM server (a protocol test double: it checks
requests like vLLM and answers schema-valid JSON, but never looks at the video)."""

from __future__ import annotations

import base64
import io
import json
import shutil
import tempfile
from pathlib import Path

import av
import pytest

from playsuite.corpus import GameEntry
from playsuite.inference import VLLMServer
from playsuite.judge.context import game_context, load_prompt
from playsuite.judge.episode import load_episode
from playsuite.judge.run import JudgeOptions, judge_one, judge_shard
from playsuite.judge.schema import BOOLEAN_FIELDS, COUNT_FIELDS
from playsuite.judge.vlm_judge import JudgeItem, VLMJudge
from playsuite.registry import load_registry
from playsuite.testing.standin import standin_argv, standin_argv_for_preset

JUDGE = "qwen3.5-9b"

STORE_GAME = GameEntry(
    id="toy",
    title="Toy Quest",
    author="Ada",
    source="itch",
    package="toy.zip",
    runtime="browser",
    entry="index.html",
    tags=("Platformer", "Pixel Art"),
    genre="Action",
    description="Jump between floating islands.",
    controls="Arrows move, Space jumps.",
    readme="README.md",
)
README_GAME = GameEntry(
    id="toy",
    title="Toy Quest",
    author="Ada",
    source="pyweek",
    package="toy.zip",
    runtime="pygame",
    entry="run_game.py",
    genre="Action",
    description="Jump between floating islands.",
    controls="Arrows move.",
    readme="README.txt",
)


def test_context_per_corpus(tmp_path) -> None:
    store = game_context(STORE_GAME)
    for text in (
        "Title: Toy Quest",
        "Author: Ada",
        "Genre: Action",
        "Tags: Platformer, Pixel Art",
    ):
        assert text in store
    assert "Description: Jump between" in store and "Controls: Arrows move, Space" in store
    assert "README" not in store
    readme = game_context(README_GAME, "TOY QUEST\nReach the golden flag in each of 5 levels.")
    assert "README:\nTOY QUEST" in readme and "golden flag" in readme
    assert "Tags:" not in readme and "Controls:" not in readme and "Description" not in readme
    fallback = game_context(README_GAME, None)
    assert "README: (not available)" in fallback and "Jump between" in fallback


def test_prompt_defines_every_field() -> None:
    text = load_prompt().template
    for field in (*BOOLEAN_FIELDS, *COUNT_FIELDS, "milestones", "t_sec", "on_screen"):
        assert field in text
    assert "$context" in text and "JSON" in text


@pytest.fixture
def server_for():
    """Start the stand-in server under the judge preset's name, with its options."""
    started: list[tuple[VLLMServer, str]] = []

    def start(**opts) -> str:
        d = tempfile.mkdtemp(prefix="psj-", dir="/tmp")
        uds = str(Path(d) / "s.sock")
        preset = load_registry().judge(JUDGE)
        argv = standin_argv_for_preset(preset, uds, **opts)
        server = VLLMServer(argv, uds, ready_timeout_s=20, poll_interval_s=0.05)
        started.append((server.start(), d))
        return uds

    yield start
    for server, d in started:
        server.stop()
        shutil.rmtree(d, ignore_errors=True)


def _catalog(tmp_path: Path, runtime: str = "browser") -> Path:
    path = tmp_path / "corpus.yaml"
    path.write_text(
        "games:\n"
        "  - {id: toy, title: Toy Quest, author: Ada, source: itch, package: toy.zip,\n"
        f"     runtime: {runtime}, entry: index.html, genre: Action,\n"
        "     tags: [Platformer], description: Jump between islands., controls: Arrows move.}\n"
    )
    return path


def test_request_carries_video_and_context(playing_episode, tmp_path, server_for) -> None:
    uds = server_for()
    from playsuite.inference.client import InferenceClient

    preset = load_registry().judge(JUDGE)
    with InferenceClient.for_preset(preset, uds) as client:
        judge = VLMJudge(JUDGE, client, load_prompt(), sampling=dict(preset.sampling))
        ctx = game_context(STORE_GAME)
        req = judge.prepare(JudgeItem("toy", load_episode(playing_episode), ctx))
        body = client.build_body(req.messages, temperature=0.0)
    parts = body["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["video_url", "text"]
    assert ctx in parts[1]["text"] and "24 frames covering 24 seconds" in parts[1]["text"]
    url = parts[0]["video_url"]["url"]
    assert url.startswith("data:video/mp4;base64,")
    with av.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as clip:
        stream = clip.streams.video[0]
        assert float(stream.average_rate) == 1.0
        assert (stream.codec_context.width, stream.codec_context.height) == (384, 288)
        assert sum(1 for _ in clip.decode(stream)) == 24
    assert judge.sampling == {"temperature": 0.0, "max_tokens": 16384, "seed": 41}


def test_judge_over_the_socket(playing_episode, tmp_path, server_for) -> None:
    uds = server_for()
    out = judge_one(JUDGE, playing_episode, JudgeOptions(catalog=_catalog(tmp_path), uds=uds))
    assert out["status"] == "ok" and out["judge"] == JUDGE
    # The stand-in answers the schema's minimal instance: all false, so level 0 by the rule.
    assert out["level"] == 0 and out["attempts"] == 1 and out["frames"] == 24


def test_invalid_answers_are_retried_then_recorded(playing_episode, tmp_path, server_for) -> None:
    options = JudgeOptions(catalog=_catalog(tmp_path), attempts=3)
    options.uds = server_for(invalid_json_first=2)
    out = judge_one(JUDGE, playing_episode, options)
    assert out["status"] == "ok" and out["attempts"] == 3
    options.uds = server_for(invalid_json_first=10)
    out = judge_one(JUDGE, playing_episode, options)
    assert out["status"] == "failed" and "level" not in out
    assert "no schema-valid JSON after 3" in out["error"]


def test_shard_judges_every_episode_once(
    playing_episode, idle_episode, tmp_path, server_for
) -> None:
    uds = server_for(latency_s=0.05)
    runs = tmp_path / "runs/local/random/k0-hz0.33-base"
    jobs = []
    for n in range(5):
        src = playing_episode if n % 2 else idle_episode
        shutil.copytree(src, runs / f"toy{n}")
        jobs.append((runs / f"toy{n}", tmp_path / "out" / f"toy{n}.json"))
    # toy4 never launched (no frames, no video); toy3's video was cut short after recording.
    (runs / "toy4/episode.mp4").unlink()
    meta4 = json.loads((runs / "toy4/meta.json").read_text())
    (runs / "toy4/meta.json").write_text(json.dumps({**meta4, "frames": 0}))
    video3 = runs / "toy3/episode.mp4"
    video3.write_bytes(video3.read_bytes()[: video3.stat().st_size // 2])
    catalog = tmp_path / "corpus.yaml"
    rows = "".join(
        f"  - {{id: toy{n}, title: T, source: local, package: p, runtime: pygame, entry: m.py}}\n"
        for n in range(5)
    )
    catalog.write_text("games:\n" + rows)
    counts = judge_shard(JUDGE, jobs, JudgeOptions(catalog={"local": str(catalog)}, uds=uds))
    assert counts == {"ok": 3, "no_video": 1, "corrupt_video": 1}
    assert all(out.exists() for _, out in jobs)


def test_shard_starts_the_server_from_server_argv(playing_episode, tmp_path) -> None:
    """``judge.server_argv`` replaces `vllm serve`: the shard starts that server on its own
    private socket ({uds}), under the judge's name ({preset}), and stops it afterwards."""
    runs = tmp_path / "runs/local/random/k0-hz0.33-base"
    shutil.copytree(playing_episode, runs / "toy")
    catalog = tmp_path / "corpus.yaml"
    catalog.write_text(
        "games:\n  - {id: toy, title: T, source: local, package: p, runtime: pygame, entry: m.py}\n"
    )
    log = tmp_path / "server.log"
    options = JudgeOptions(
        catalog={"local": str(catalog)},
        server_argv=standin_argv("{uds}", model="{preset}"),
        server_log=str(log),
    )
    out = tmp_path / "out/toy.json"
    sockets = "psj-*/judge.sock"  # other judge jobs (or tests) may have theirs meanwhile
    before = set(Path(tempfile.gettempdir()).glob(sockets))
    assert judge_shard(JUDGE, [(runs / "toy", out)], options) == {"ok": 1}
    assert json.loads(out.read_text())["judge"] == JUDGE
    # The stand-in refuses requests for another model name, so an `ok` judgement means it served
    # under the judge's name; it logged where the shard said, and its socket is gone.
    assert log.stat().st_size > 0
    assert not set(Path(tempfile.gettempdir()).glob(sockets)) - before


def test_prefetch_must_not_be_negative() -> None:
    from string import Template

    from playsuite.inference import InferenceClient
    from playsuite.judge.vlm_judge import VLMJudge

    with InferenceClient("/tmp/playsuite-no-server.sock", "judge") as client:
        judge = VLMJudge("judge", client, Template("$context"))
        with pytest.raises(ValueError, match="prefetch"):
            list(judge.judge_many([], prefetch=-1))
