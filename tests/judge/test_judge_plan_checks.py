"""Judge planning with engine checks: the check judge judges exactly the check runs' episodes,
the paper's judges and scores tables never see them, and their jobs start the real engine."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from playsuite.planning.judge import JudgePlan
from playsuite.registry import load_registry

REPO = Path(__file__).resolve().parents[2]
CORPUS = """\
games:
  - {id: toy-a, title: Toy A, source: local, package: toy, runtime: pygame, entry: a.py,
     genre: Action, probes: {score: game.score}}
  - {id: toy-b, title: Toy B, source: local, package: toy, runtime: pygame, entry: b.py,
     genre: Puzzle}
"""
PAPER = [
    "results/runs/test/random/k0-hz0.33-base/shards/s0000.tsv",
    "results/runs/test/random/k3-hz0.33-base/shards/s0000.tsv",
]
CHECKS = ["results/runs/test/tiny-qwen2.5-vl/k3-hz0.33-base/shards/s0000.tsv"]
STANDIN = ["python", "-m", "standin", "--uds", "{uds}"]


def plan(tmp_path: Path, judges: list[str], check_judge: str = "tiny-judge") -> JudgePlan:
    table = tmp_path / "corpus.yaml"
    table.write_text(CORPUS)
    config = {
        "corpora": {"test": {"table": str(table)}},
        "judges": judges,
        "judge": {"server_argv": STANDIN},
    }
    registry = load_registry(REPO / "config" / "models.yaml")
    return JudgePlan(config, registry, lambda: PAPER, check_judge, lambda: CHECKS)


def wc(unit: tuple[str, ...]) -> SimpleNamespace:
    keys = ("judge", "corpus", "preset", "condition", "shard")
    return SimpleNamespace(**dict(zip(keys, unit, strict=True)))


def test_only_the_check_judge_judges_the_checks(tmp_path: Path) -> None:
    p = plan(tmp_path, ["frame"])
    by_judge: dict[str, set[str]] = {}
    for judge, _, preset, _, _ in p.units:
        by_judge.setdefault(judge, set()).add(preset)
    assert by_judge == {"frame": {"random"}, "state": {"random"}, "tiny-judge": {"tiny-qwen2.5-vl"}}
    check = ("tiny-judge", "test", "tiny-qwen2.5-vl", "k3-hz0.33-base", "s0000")
    assert list(p.check_units) == [check]
    assert p.inputs(wc(check)) == CHECKS
    assert p.check_manifests() == [
        "results/judgements/tiny-judge/test/tiny-qwen2.5-vl/k3-hz0.33-base/shards/s0000.tsv"
    ]
    # No scores table for the checks: the paper's statistics start from scores tables.
    assert p.scores_targets() == ["results/scores/frame.tsv", "results/scores/state.tsv"]


def test_a_paper_judge_that_is_also_the_check_judge_keeps_them_out_of_its_scores(
    tmp_path: Path,
) -> None:
    p = plan(tmp_path, ["frame", "tiny-judge"])
    collected = p.manifests(SimpleNamespace(judge="tiny-judge"))
    assert len(collected) == len(PAPER) and all("/random/" in m for m in collected)
    assert p.check_manifests() == [
        "results/judgements/tiny-judge/test/tiny-qwen2.5-vl/k3-hz0.33-base/shards/s0000.tsv"
    ]
    assert "results/scores/tiny-judge.tsv" in p.scores_targets()


def test_check_jobs_start_the_real_engine_whatever_server_argv_says(tmp_path: Path) -> None:
    p = plan(tmp_path, ["frame", "tiny-judge"])
    check = ("tiny-judge", "test", "tiny-qwen2.5-vl", "k3-hz0.33-base", "s0000")
    paper = ("tiny-judge", "test", "random", "k0-hz0.33-base", "s0000")
    assert p.server_argv(wc(check)) == []
    assert p.server_argv(wc(paper)) == STANDIN
    # Tiny judges ask Slurm for no GPU.
    assert p.resource("gpu", 0)(wc(check)) == 0


def test_without_checks_the_plan_is_the_papers(tmp_path: Path) -> None:
    with_checks = plan(tmp_path, ["frame"])
    without = plan(tmp_path, ["frame"], check_judge="")
    assert without.check_units == {} and without.check_manifests() == []
    assert set(without.units) == set(with_checks.units) - set(with_checks.check_units)
    assert without.scores_targets() == with_checks.scores_targets()
