"""The generalist tool interface on the real engine: a local game played through typed tools.

A tiny random-weight model would never choose a tool on its own, so the condition asks for
``tool_choice=required`` (the interface's default), which vLLM enforces by guided decoding (the
preset's ``serve.tool_call_parser`` gives the server its tool-call parser, and the tools are
``strict``, so their arguments follow the schemas too): every answer is a call, which the served
policy writes in the tools parser's form and the agent parses into canonical actions. The
same episode keeps one memory round, so from its second step on each request carries the
previous turn (its frame and answer) and the server's prompt-token count shows it, and it is a
task run of the row's first task.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playsuite.actions.parsers.tools import TOOL_NAMES
from playsuite.config import Condition
from playsuite.corpus import find_game, load_corpus
from playsuite.harness.cli import limits_for
from playsuite.harness.node import ServerSettings, ShardJob, run_shard
from playsuite.records.manifest import read_manifest
from playsuite.runtimes.acquire import acquire
from tests.engine.conftest import READY_TIMEOUT_S, REPO, model_of
from tests.runtimes.conftest import games_cache

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.games]

CORPUS = REPO / "config" / "corpora" / "local.yaml"
GAME = "funnyboat"
PRESET = "tiny-qwen2.5-vl"
CONDITION = "k0-hz0.33-base+agent.interface=tools+agent.memory_rounds=1+task.index=0"
STEPS = 3
#: The canonical action kind each tool produces.
KINDS = {
    "press_key": "key",
    "hold_key": "hold",
    "click": "click",
    "move_mouse": "move",
    "scroll": "scroll",
    "wait": "wait",
}


def test_an_episode_whose_steps_come_from_tool_calls(
    tmp_path: Path, registry, tiny_model, engine_vllm: str
) -> None:
    game = find_game(load_corpus(CORPUS), GAME)
    acquire(game, games_cache(), base_dir=REPO)
    preset = registry.preset(PRESET)
    job = ShardJob(
        corpus="local",
        preset=preset,
        condition=Condition.parse(CONDITION),
        games=[game],
        runs_dir=tmp_path / "runs",
        games_dir=games_cache(),
        workers=1,
        limits_by_runtime=limits_for(STEPS, 900),
        server=ServerSettings.from_schema(
            vllm=engine_vllm,
            model=model_of(preset, tiny_model),
            ready_timeout_s=READY_TIMEOUT_S,
        ),
        log_dir=tmp_path / "logs",
        live=False,
    )
    code = run_shard(job, tmp_path / "manifest.tsv")
    logs = {p.name: p.read_text()[-3000:] for p in (tmp_path / "logs").glob("*")}
    assert code == 0, logs
    assert len(read_manifest(tmp_path / "manifest.tsv")) == 1
    episode = tmp_path / "runs" / GAME
    meta = json.loads((episode / "meta.json").read_text())
    assert meta["status"] == "ok" and meta["steps"] == STEPS, (meta, logs)
    assert meta["condition"] == CONDITION
    trace = [json.loads(x) for x in (episode / "trace.jsonl").read_text().splitlines()]
    assert len(trace) == STEPS
    for record in trace:
        calls = [
            json.loads(block.split("</tool_call>")[0])
            for block in record["response"].split("<tool_call>")[1:]
        ]
        assert calls, record["response"]  # guided decoding: every answer is tool calls
        assert all(c["name"] in TOOL_NAMES for c in calls), calls
        kinds = [a["kind"] for a in record["actions"]]
        assert len(kinds) == len(calls)
        for call, action in zip(calls, record["actions"], strict=True):
            # strict tools: the arguments follow the schema, so each call is its tool's action
            assert action["kind"] == KINDS[call["name"]], (call, action)
        assert not record["invalid"]
    assert meta["invalid_steps"] == 0
    # memory: the first step had no earlier turn, every later one carried one more image
    turns = [r["info"]["memory_turns"] for r in trace]
    assert turns == [0, 1, 1]
    tokens = [r["info"]["usage"]["prompt_tokens"] for r in trace]
    assert tokens[1] > tokens[0] and tokens[2] > tokens[0], tokens
