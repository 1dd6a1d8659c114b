"""The annotator and the offline track on the real engine (vLLM's CPU build, a tiny model).

Two local pygame games are played for real (the runtime, the sandbox and the recorder, with the
random baseline, which needs no model); the tiny Qwen2.5-VL preset, served by vLLM over loopback
TCP (the session's shared engine) and asked as a hosted preset at that endpoint, then annotates
both episodes into the three-level pyramid and answers a few of the questions built from them.
Its weights are random, so what it writes is noise: the test checks that every answer came
through the JSON-Schema constrained path, parsed, validated and landed in files that follow their
contract, not what it says.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.config import Condition
from playsuite.corpus import find_game, load_corpus
from playsuite.harness.cli import limits_for
from playsuite.harness.node import ShardJob, run_shard
from playsuite.horizon.annotate import horizon_settings
from playsuite.horizon.questions import build_questions, load_annotated
from playsuite.horizon.run import ServeOptions, annotate_episodes, answer_file
from playsuite.horizon.tables import accuracy_table
from playsuite.records.horizon import read_annotation, read_answers, write_questions
from playsuite.registry import Registry
from playsuite.runtimes.acquire import acquire
from tests.engine.conftest import KEY, KEY_ENV, REPO, SERVED, hosted_preset
from tests.runtimes.conftest import games_cache

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.games]

CORPUS = REPO / "config" / "corpora" / "local.yaml"
GAMES = ("funnyboat", "solarwolf")
PRESET = SERVED
STEPS = 5
#: Ranges for 15-s episodes: 3-s operations, goals of two or three, one strategy.
SETTINGS = {"goal_s": [6, 9], "strategy_s": [12, 30], "max_per_task": 3}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, registry) -> Path:
    root = tmp_path_factory.mktemp("engine-horizon")
    games = [find_game(load_corpus(CORPUS), g) for g in GAMES]
    for game in games:
        acquire(game, games_cache(), base_dir=REPO)
    job = ShardJob(
        corpus="local",
        preset=registry.preset("random"),
        condition=Condition.parse("k0-hz0.33-base"),
        games=games,
        runs_dir=root / "runs",
        games_dir=games_cache(),
        workers=2,
        limits_by_runtime=limits_for(STEPS, 600),
        log_dir=root / "logs",
        live=False,
    )
    assert run_shard(job, root / "manifest.tsv") == 0
    return root


@pytest.fixture(scope="module")
def hosted(registry, engine_url: str) -> Iterator[Registry]:
    """The model registry with the tiny preset hosted at the shared engine (its key set)."""
    preset = hosted_preset(registry, engine_url)
    with pytest.MonkeyPatch.context() as env:
        env.setenv(KEY_ENV, KEY)
        yield dataclasses.replace(registry, presets={**registry.presets, PRESET: preset})


def test_real_episodes_annotated_and_questions_answered(played, hosted, tmp_path) -> None:
    episodes = [played / "runs" / g for g in GAMES]
    settings = horizon_settings(SETTINGS)
    served = ServeOptions()  # a hosted preset: asked at its endpoint, no server started
    index = tmp_path / "index.tsv"
    counts = annotate_episodes(
        PRESET, episodes, settings, served, catalogs=str(CORPUS), index=index, registry=hosted
    )
    assert counts == {"ok": 2}
    for episode in episodes:
        doc = read_annotation(episode)  # schema and pyramid structure
        assert doc["status"] == "ok" and doc["settings"]["media"] == "image"
        assert len(doc["operations"]) == STEPS  # one 3-s step each: two exceed the 5-s bound
        assert all(o["instruction"] and o["frames"] for o in doc["operations"])
        assert doc["goals"] and doc["strategies"]
        # every request of the pyramid was answered by the engine (tokens counted)
        assert doc["usage"]["requests"] >= STEPS + len(doc["goals"]) + len(doc["strategies"])
        assert doc["usage"]["completion_tokens"] >= doc["usage"]["requests"]
        assert doc["usage"]["prompt_tokens"] > 100 * STEPS  # prompts with frames

    items, failed = load_annotated(episodes)
    assert failed == 0
    questions = build_questions(items, seed=0, sample_fps=1.0, max_per_task=3)
    assert questions["counts"]["T1"] == 3 and questions["counts"]["T3"] == 3
    write_questions(tmp_path / "questions.json", questions)
    answered = answer_file(
        PRESET, tmp_path / "questions.json", tmp_path / "a.json", settings, served, registry=hosted
    )
    assert answered == {"ok": len(questions["questions"])}
    answers = read_answers(tmp_path / "a.json")
    assert answers["usage"]["requests"] == len(questions["questions"])
    assert all(a["choice"] in (0, 1, 2, 3) for a in answers["answers"])
    table = accuracy_table([answers], BootstrapSpec(resamples=200))
    assert set(table["task"]) >= {"T1", "T1-frames", "T3", "all"}
    assert (table["questions"] > 0).all()
