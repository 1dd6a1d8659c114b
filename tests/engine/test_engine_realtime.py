"""The real-time protocol with a real model: a tiny preset served by the real engine plays a
local game under GameWorld-RT, and its measured thinking time is played as game time.

Where the baselines answer in microseconds (nothing to play), a served model's answer takes a
real request to a real server: every step must record that latency, the game time it became
(whole frames of the video) and the frames it added, and the budget must end the episode.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.config import Condition
from playsuite.corpus import find_game, load_corpus
from playsuite.harness.cli import limits_for
from playsuite.harness.episode import think_game_seconds
from playsuite.harness.node import ServerSettings, ShardJob, run_shard
from playsuite.harness.protocol import PlayProtocol
from playsuite.records.episode import read_meta, read_trace
from playsuite.runtimes.acquire import acquire
from tests.engine.conftest import READY_TIMEOUT_S, REPO, model_of
from tests.runtimes.conftest import games_cache

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.games]

PRESET = "tiny-qwen2.5-vl"
BUDGET = 3
CONDITION = f"k0-hz3-base+play.action_budget={BUDGET}+play.realtime=true"


def test_a_served_models_latency_is_played_as_game_time(
    tmp_path: Path, registry, tiny_model, engine_vllm: str
) -> None:
    game = find_game(load_corpus(REPO / "config/corpora/local.yaml"), "funnyboat")
    acquire(game, games_cache(), base_dir=REPO)
    preset = registry.preset(PRESET)
    condition = Condition.parse(CONDITION)
    protocol = PlayProtocol.from_schema().for_condition(condition)
    job = ShardJob(
        corpus="local",
        preset=preset,
        condition=condition,
        games=[game],
        runs_dir=tmp_path / "runs",
        games_dir=games_cache(),
        workers=1,
        limits_by_runtime=limits_for(None, 900, protocol.action_budget),
        server=ServerSettings.from_schema(
            vllm=engine_vllm, model=model_of(preset, tiny_model), ready_timeout_s=READY_TIMEOUT_S
        ),
        log_dir=tmp_path / "logs",
        live=False,
        protocol=protocol,
    )
    assert run_shard(job, tmp_path / "manifest.tsv") == 0
    episode = tmp_path / "runs" / "funnyboat"
    meta = read_meta(episode)
    assert (meta["status"], meta["steps"], meta["stop_reason"]) == ("ok", BUDGET, "steps"), meta
    assert meta["protocol"] == {"action_budget": BUDGET, "reset_on_fail": False, "realtime": True}
    trace = read_trace(episode)
    thought = 0
    for record in trace:
        # a request to a real server takes more than half a frame (1/60 s)
        assert record["think_s"] >= record["latency_s"] > 1 / 60, record
        assert record["think_game_s"] == pytest.approx(think_game_seconds(record["think_s"], 30))
        assert record["think_game_s"] > 0
        thought += round(record["think_game_s"] * 30)
    assert meta["frames"] == BUDGET * 10 + thought
    assert meta["t_game"] == pytest.approx(meta["frames"] / 30)
