"""A hosted preset (kind ``openai``) played against the real engine over loopback TCP.

One vLLM (its CPU build, the tiny Qwen2.5-VL) serves ``--host 127.0.0.1 --port P --api-key K``
for every test here, as a hosted API would: the preset names its URL, its model and the
environment variable with the key. A node job then plays a local pygame game through it exactly
as on a cluster, with no model server of its own: a wrong key ends the episode with the refusal
as its reason; the right key plays the configured number of steps and records each answer's
token usage and their sums; behind a proxy that answers 429 to the first requests (a test
helper, playsuite.testing.throttling_proxy), the job still succeeds and the retries are
recorded in the trace and in ``meta.json``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.config import Condition, load_yaml
from playsuite.corpus import find_game, load_corpus
from playsuite.harness.cli import limits_for
from playsuite.harness.node import ShardJob, run_shard
from playsuite.records.episode import read_meta, read_trace
from playsuite.records.manifest import read_manifest
from playsuite.registry import Preset
from playsuite.runtimes.acquire import acquire
from playsuite.testing.throttling_proxy import Refusal, ThrottlingProxy
from tests.engine.conftest import KEY, KEY_ENV, REPO, SERVED, hosted_preset
from tests.runtimes.conftest import games_cache

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.games]

CORPUS = REPO / "config" / "corpora" / "local.yaml"
GAME = "funnyboat"
#: The steps a configured run plays (play.steps of config/config.yaml), as the baselines do.
STEPS = int(load_yaml(REPO / "config" / "config.yaml")["play"]["steps"])


def play(preset: Preset, root: Path, steps: int) -> tuple[int, Path]:
    """A node job of one game with ``preset``; its exit code and the episode folder."""
    game = find_game(load_corpus(CORPUS), GAME)
    acquire(game, games_cache(), base_dir=REPO)
    job = ShardJob(
        corpus="local",
        preset=preset,
        condition=Condition.parse("k0-hz0.33-base"),
        games=[game],
        runs_dir=root / "runs",
        games_dir=games_cache(),
        workers=1,
        limits_by_runtime=limits_for(steps, 900),
        log_dir=root / "logs",
        live=False,
    )
    code = run_shard(job, root / "manifest.tsv")
    assert not list((root / "logs").glob("server-*.log")), "a hosted preset starts no server"
    return code, root / "runs" / GAME


def no_key_on_disk(episode: Path) -> None:
    for file in episode.iterdir():
        if file.is_file():
            assert KEY not in file.read_text(errors="replace"), file


def test_a_wrong_key_is_the_episodes_failure_reason(
    engine_url: str, registry, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-not-the-key")
    code, episode = play(hosted_preset(registry, engine_url), tmp_path, STEPS)
    assert code == 1  # our failure, not the game's: the workflow retries once the key is fixed
    meta = read_meta(episode)
    assert meta["status"] == "model_error" and meta["stop_reason"] == "model_error"
    assert meta["error"].startswith("API key refused at step 0: HTTP 401"), meta["error"]
    assert f"${KEY_ENV}" in meta["error"] and engine_url in meta["error"]
    assert meta["steps"] == 0
    assert meta["usage"] == {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
        "requests": 0,
        "retries": 0,
    }


def test_the_right_key_plays_the_game_and_records_token_usage(
    engine_url: str, registry, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    code, episode = play(hosted_preset(registry, engine_url), tmp_path, STEPS)
    assert code == 0
    (row,) = read_manifest(tmp_path / "manifest.tsv")
    assert row.status == "ok" and row.steps == STEPS
    meta = read_meta(episode)
    assert meta["model"] == {
        "hf_id": None,
        "revision": None,
        "served": SERVED,
        "engine": "openai",
        "engine_version": None,
        "endpoint": f"{engine_url}/v1",
    }
    trace = read_trace(episode)
    assert len(trace) == STEPS
    usage = [step["info"]["usage"] for step in trace]
    assert all(u["prompt_tokens"] > 100 and u["completion_tokens"] >= 1 for u in usage)
    assert meta["usage"] == {
        "prompt_tokens": sum(u["prompt_tokens"] for u in usage),
        "completion_tokens": sum(u["completion_tokens"] for u in usage),
        "total_tokens": sum(u["total_tokens"] for u in usage),
        "requests": STEPS,
        "retries": 0,
    }
    assert (episode / "episode.mp4").stat().st_size > 0
    no_key_on_disk(episode)


def test_rate_limited_requests_are_retried_and_recorded(
    engine_url: str, registry, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    refusals = [Refusal(429, retry_after="1"), Refusal(429)]
    with ThrottlingProxy(engine_url, refusals) as proxy:
        code, episode = play(hosted_preset(registry, proxy.url), tmp_path, 2)
        statuses = proxy.statuses()
    assert code == 0
    assert statuses == [429, 429, 200, 200]  # the proxy's refusals, then the engine's answers
    first, second = read_trace(episode)
    assert first["info"]["attempts"] == 3
    assert [r.split(":")[0] for r in first["info"]["retries"]] == ["HTTP 429", "HTTP 429"]
    assert second["info"]["attempts"] == 1 and "retries" not in second["info"]
    meta = read_meta(episode)
    assert meta["status"] == "ok" and meta["steps"] == 2
    assert meta["usage"]["requests"] == 2 and meta["usage"]["retries"] == 2
    assert meta["usage"]["prompt_tokens"] > 200
