"""Frame-vs-state agreement arithmetic (benchmarks/judge_agreement_local.py) and corpus probes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from playsuite.corpus import load_corpus
from playsuite.judge.levels import progress_level
from playsuite.judge.result import empty_milestones
from playsuite.judge.state_judge import probe_role

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from judge_agreement_local import field_agreement, format_agreement  # noqa: E402


def judgement(**fields: object) -> dict:
    m = empty_milestones()
    m.update(fields)
    return {**m, "level": progress_level(m), "status": "ok"}


def test_field_agreement_counts() -> None:
    score = judgement(score_or_resource_increased=True)  # level 2
    both_ways = judgement(score_or_resource_increased=True, new_area_or_level_reached=True)
    control = judgement(player_control_evident=True, distinct_interactions=3)  # level 1
    died = judgement(death_or_game_over_count=2)  # level 0
    failed = {"status": "no_probes", "judge": "state"}
    pairs = [
        (score, score),  # agree on everything
        (control, both_ways),  # frame saw control only, state saw score and a new area
        (died, died),
        (score, failed),  # no opinion: left out
    ]
    rows = {r.field: r for r in field_agreement(pairs)}
    assert {r.episodes for r in rows.values()} == {3}
    s = rows["score_or_resource_increased"]
    assert (s.agree, s.both, s.only_a, s.only_b) == (2, 1, 0, 1)
    a = rows["new_area_or_level_reached"]
    assert (a.agree, a.both, a.only_a, a.only_b) == (2, 0, 0, 1)
    d = rows["death_or_game_over_count>0"]
    assert (d.agree, d.both) == (3, 1)
    lv = rows["level"]
    assert lv.agree == 2 and lv.mean_a == pytest.approx(1.0) and lv.mean_b == pytest.approx(5 / 3)
    assert rows["level>=2"].only_b == 1 and rows["level>=2"].rate == pytest.approx(2 / 3)
    text = format_agreement("pixels vs state", list(rows.values()))
    assert "score_or_resource_increased" in text and "67%" in text


def test_no_usable_pairs_is_not_agreement() -> None:
    rows = field_agreement([({"status": "failed"}, judgement())])
    assert all(r.episodes == 0 and r.rate is None for r in rows)


def test_every_local_probe_is_understood_by_the_state_judge() -> None:
    games = [g for g in load_corpus(REPO / "config" / "corpora" / "local.yaml") if g.probes]
    assert len(games) >= 5
    for game in games:
        for name in game.probes:
            assert probe_role(name) is not None, f"{game.id}: probe {name!r} has no meaning"
