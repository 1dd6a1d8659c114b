"""GameWorld's interfaces and protocol on the real engine, in one served episode.

The tiny Qwen2.5-VL preset, served by the real vLLM CPU build over loopback TCP (the session's
shared engine, tests/engine/conftest.py: a server start is what an engine test spends most of its
time on) and asked as a hosted preset, plays a local game under a condition that turns on
everything GameWorld adds at once:

- the **tool interface**: a random-weight model would never choose a tool on its own, so the
  interface asks for ``tool_choice=required`` (its default), which vLLM enforces by guided
  decoding (the preset's ``serve.tool_call_parser``; the tools are ``strict``, so arguments
  follow their schemas): every answer is a call, parsed into canonical actions;
- one **memory round**: from the second step on each request carries the previous turn (its frame
  and answer), and the server's prompt-token count shows it;
- a **task** in the prompt (the row's first task);
- the **real-time protocol** with an **action budget**: each answer's measured thinking time is
  played as game time (whole frames of the video), and the budget ends the episode.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playsuite.actions.parsers.tools import TOOL_NAMES
from playsuite.config import Condition
from playsuite.corpus import find_game, load_corpus
from playsuite.harness.cli import limits_for
from playsuite.harness.episode import think_game_seconds
from playsuite.harness.node import ShardJob, run_shard
from playsuite.harness.protocol import PlayProtocol
from playsuite.records.episode import read_meta, read_trace
from playsuite.records.manifest import read_manifest
from playsuite.runtimes.acquire import acquire
from tests.engine.conftest import KEY, KEY_ENV, REPO, hosted_preset
from tests.runtimes.conftest import games_cache

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.games]

GAME = "funnyboat"
BUDGET = 3
CONDITION = (
    "k0-hz3-base+agent.interface=tools+agent.memory_rounds=1"
    f"+play.action_budget={BUDGET}+play.realtime=true+task.index=0"
)
#: The canonical action kind each tool produces.
KINDS = {
    "press_key": "key",
    "hold_key": "hold",
    "click": "click",
    "move_mouse": "move",
    "scroll": "scroll",
    "wait": "wait",
}


@pytest.fixture(scope="module")
def episode(tmp_path_factory, registry, engine_url: str) -> Path:
    tmp_path = tmp_path_factory.mktemp("gameworld")
    game = find_game(load_corpus(REPO / "config/corpora/local.yaml"), GAME)
    acquire(game, games_cache(), base_dir=REPO)
    preset = hosted_preset(registry, engine_url)
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
        log_dir=tmp_path / "logs",
        live=False,
        protocol=protocol,
    )
    with pytest.MonkeyPatch.context() as env:
        env.setenv(KEY_ENV, KEY)
        code = run_shard(job, tmp_path / "manifest.tsv")
    logs = {p.name: p.read_text()[-3000:] for p in (tmp_path / "logs").glob("*")}
    assert code == 0, logs
    assert len(read_manifest(tmp_path / "manifest.tsv")) == 1
    return tmp_path / "runs" / GAME


def test_every_step_comes_from_tool_calls_with_memory(episode: Path) -> None:
    meta = read_meta(episode)
    assert meta["status"] == "ok" and meta["steps"] == BUDGET, meta
    assert meta["condition"] == CONDITION
    trace = read_trace(episode)
    assert len(trace) == BUDGET
    for record in trace:
        calls = [
            json.loads(block.split("</tool_call>")[0])
            for block in record["response"].split("<tool_call>")[1:]
        ]
        assert calls, record["response"]  # guided decoding: every answer is tool calls
        assert all(c["name"] in TOOL_NAMES for c in calls), calls
        assert len(record["actions"]) == len(calls)
        for call, action in zip(calls, record["actions"], strict=True):
            # strict tools: the arguments follow the schema, so each call is its tool's action
            assert action["kind"] == KINDS[call["name"]], (call, action)
        assert not record["invalid"]
    assert meta["invalid_steps"] == 0
    # memory: the first step had no earlier turn, every later one carried one more image
    assert [r["info"]["memory_turns"] for r in trace] == [0, 1, 1]
    tokens = [r["info"]["usage"]["prompt_tokens"] for r in trace]
    assert tokens[1] > tokens[0] and tokens[2] > tokens[0], tokens


def test_the_models_latency_is_played_as_game_time(episode: Path) -> None:
    meta = read_meta(episode)
    assert meta["stop_reason"] == "steps", meta
    assert meta["protocol"] == {"action_budget": BUDGET, "reset_on_fail": False, "realtime": True}
    thought = 0
    for record in read_trace(episode):
        # a request to a real server takes more than half a frame (1/60 s)
        assert record["think_s"] >= record["latency_s"] > 1 / 60, record
        assert record["think_game_s"] == pytest.approx(think_game_seconds(record["think_s"], 30))
        assert record["think_game_s"] > 0
        thought += round(record["think_game_s"] * 30)
    assert meta["frames"] == BUDGET * 10 + thought
    assert meta["t_game"] == pytest.approx(meta["frames"] / 30)
