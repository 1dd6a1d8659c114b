"""playsuite.planning.paths: the one spelling of results/, and its parsers, agree both ways."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from playsuite.planning import paths
from playsuite.planning.paths import EpisodeKey

KEY = EpisodeKey("itch", "qwen3-vl-8b", "k3-hz0.33-base", "itch-1234")


def test_episode_key_round_trips() -> None:
    assert KEY.dir == "results/runs/itch/qwen3-vl-8b/k3-hz0.33-base/itch-1234"
    assert KEY.meta == KEY.dir + "/meta.json"
    assert KEY.meta == paths.EPISODE_META.format(**vars(KEY))
    for form in (KEY.dir, KEY.meta, KEY.dir + "/", "./" + KEY.dir, "/abs/copy/" + KEY.dir):
        assert EpisodeKey.from_dir(form) == KEY
    assert KEY.judgement("frame") == (
        "results/judgements/frame/itch/qwen3-vl-8b/k3-hz0.33-base/itch-1234.json"
    )
    assert KEY.judgement("frame") == paths.JUDGEMENT.format(judge="frame", **vars(KEY))


@pytest.mark.parametrize(
    "path",
    ["results/runs/itch/p/k", "results/games/itch-1/acquired.json", "elsewhere/a/b/c/d"],
)
def test_what_is_no_episode_is_refused(path: str) -> None:
    assert EpisodeKey.parse(path) is None
    with pytest.raises(ValueError, match="not an episode directory"):
        EpisodeKey.from_dir(path)


def test_play_manifest_round_trips() -> None:
    manifest = paths.play_manifest("itch", "random", "k0-hz0.33-base", "s0007")
    assert manifest == "results/runs/itch/random/k0-hz0.33-base/shards/s0007.tsv"
    key = paths.parse_play_manifest(manifest)
    assert key is not None and (*key.run, key.shard) == (
        "itch",
        "random",
        "k0-hz0.33-base",
        "s0007",
    )
    assert paths.play_manifest_run_dir(manifest) == "results/runs/itch/random/k0-hz0.33-base"
    assert paths.parse_play_manifest(KEY.meta) is None
    assert paths.parse_play_manifest("results/runs/itch/random/k0/shards/s0007.json") is None


def test_catalog_table_corpus() -> None:
    assert paths.catalog_table_corpus("results/catalog/itch/games.tsv") == "itch"
    assert paths.catalog_table_corpus("./results/catalog/pyweek/games.tsv") == "pyweek"
    assert paths.catalog_table_corpus("config/corpora/local.yaml") is None
    assert paths.catalog_table_corpus("results/catalog/itch/funnel.csv") is None


def test_wildcards_match_what_the_plan_writes() -> None:
    def full(name: str, value: str) -> bool:
        return re.fullmatch(paths.WILDCARDS[name], value) is not None

    for name, value in vars(KEY).items():
        assert full(name, value), (name, value)
    assert full("shard", "s0000") and full("shard", "e0012") and not full("shard", "x0000")
    assert full("block", "s0003") and not full("block", "e0003")
    assert not full("game", "Bad_Id") and not full("condition", "k3-fast")


def test_logs_validation_and_efficiency_paths() -> None:
    assert paths.log("analysis", "{judge}", "main") == "results/logs/analysis/{judge}/main.log"
    assert paths.log("tabulate_models") == "results/logs/tabulate_models.log"
    assert paths.log_dir("analysis", "efficiency_concurrency", "w2") == (
        "results/logs/analysis/efficiency_concurrency/w2"
    )
    assert paths.VALIDATION_SAMPLE == "results/validation/sample.tsv"
    assert paths.VALIDATION_RATINGS == "results/validation/judge_ratings.csv"
    assert paths.validation_judge_manifest("frame") == (
        "results/validation/judgements/frame/manifest.tsv"
    )
    assert paths.efficiency_manifest(4) == "results/efficiency/concurrency/w4/manifest.tsv"
    assert paths.efficiency_costs(4) == "results/efficiency/concurrency/w4/costs"
    assert paths.EFFICIENCY_RUNS.format(workers=4) == "results/efficiency/concurrency/w4/runs"
    assert paths.judgements("frame") == "results/judgements/frame"
    assert paths.judge_costs_dir("results/judge_costs", "frame") == "results/judge_costs/frame"
    assert paths.judge_costs("jc", "frame", "itch", "p", "k0-hz1-base", "s0001") == (
        "jc/frame/itch/p/k0-hz1-base/s0001.tsv"
    )
    assert paths.catalog_file("{corpus}", "launch/{game}.json") == (
        "results/catalog/{corpus}/launch/{game}.json"
    )
    assert paths.table("main", "csv", "{judge}") == "results/tables/{judge}/main.csv"


RULE_FILES = [
    "common.smk",
    "catalog.smk",
    "play.smk",
    "judge.smk",
    "validation.smk",
    "analysis.smk",
    "horizon.smk",
]


@pytest.mark.parametrize("rules", RULE_FILES)
def test_rules_spell_no_results_path(rules: str) -> None:
    """Every rule file takes every results/ path from playsuite.planning.paths."""
    text = (Path(__file__).parents[2] / "rules" / rules).read_text()
    code = [line.split("#", 1)[0] for line in text.splitlines()]
    spelled = [line for line in code if re.search(r"[\"']results/", line)]
    assert spelled == [], spelled
