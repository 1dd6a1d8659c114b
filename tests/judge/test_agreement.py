"""Agreement table checked against an independent computation on crafted ratings."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from playsuite.judge.agreement import agreement_table, clean_ratings

# Three humans and two judges rate six videos; h3 skips v6, judge:b failed on v2 (empty level).
LEVELS = {
    "h1": [0, 1, 2, 3, 4, 2],
    "h2": [0, 2, 2, 3, 3, 1],
    "h3": [1, 1, 3, 3, 4, None],
    "judge:a": [0, 1, 2, 4, 4, 2],
    "judge:b": [2, None, 0, 1, 4, 4],
}
VIDEOS = [f"v{i}" for i in range(1, 7)]


def crafted() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for rater, levels in LEVELS.items():
        for video, level in zip(VIDEOS, levels, strict=True):
            row = {"video_id": video, "rater": rater, "level": "" if level is None else str(level)}
            row["player_control_evident"] = "true" if (level or 0) >= 1 else "false"
            row["stuck_or_looping"] = str(bool(rng.integers(0, 2))).lower()
            rows.append(row)
    return pd.DataFrame(rows)


def alpha_interval(units: list[list[float]]) -> float:
    """Krippendorff's alpha, interval metric, from the coincidence-matrix definition."""
    units = [[v for v in u if v is not None] for u in units]
    units = [u for u in units if len(u) >= 2]
    n = sum(len(u) for u in units)
    d_o = sum(
        (a - b) ** 2 / (len(u) - 1)
        for u in units
        for i, a in enumerate(u)
        for j, b in enumerate(u)
        if i != j
    )
    values = [v for u in units for v in u]
    d_e = sum((a - b) ** 2 for a in values for b in values)
    return 1 - (n - 1) * d_o / d_e


def pairs_stats(df: pd.DataFrame, left: list[str], right: list[str] | None):
    lv = {(r.video_id, r.rater): r for r in df.itertuples()}
    within = exact = agree = compared = total = 0
    for v in VIDEOS:
        a = [r for r in left if (v, r) in lv and lv[(v, r)].level != ""]
        b = [r for r in (right or []) if (v, r) in lv and lv[(v, r)].level != ""]
        pairs = itertools.combinations(a, 2) if right is None else itertools.product(a, b)
        for x, y in pairs:
            dx, dy = int(lv[(v, x)].level), int(lv[(v, y)].level)
            total += 1
            within += abs(dx - dy) <= 1
            exact += dx == dy
            for field in ("player_control_evident", "stuck_or_looping"):
                compared += 1
                agree += getattr(lv[(v, x)], field) == getattr(lv[(v, y)], field)
    return total, within / total, exact / total, agree / compared


def test_matches_independent_computation() -> None:
    df = crafted()
    table = agreement_table(df).set_index("comparison")
    assert list(table.index) == ["human-human", "a-human", "b-human"]
    humans = ["h1", "h2", "h3"]

    def units(raters):
        return [[LEVELS[r][k] for r in raters] for k in range(6)]

    assert table.at["human-human", "alpha"] == pytest.approx(alpha_interval(units(humans)))
    assert table.at["a-human", "alpha"] == pytest.approx(
        alpha_interval(units([*humans, "judge:a"]))
    )
    assert table.at["b-human", "alpha"] == pytest.approx(
        alpha_interval(units([*humans, "judge:b"]))
    )
    # The good judge agrees better than the bad one.
    assert table.at["a-human", "alpha"] > 0.7 > table.at["b-human", "alpha"]
    for name, left, right in [
        ("human-human", humans, None),
        ("a-human", ["judge:a"], humans),
        ("b-human", ["judge:b"], humans),
    ]:
        total, within, exact, milestone = pairs_stats(df, left, right)
        assert table.at[name, "pairs"] == total
        assert table.at[name, "within_one"] == pytest.approx(within)
        assert table.at[name, "exact"] == pytest.approx(exact)
        assert table.at[name, "milestone_agreement"] == pytest.approx(milestone)
    assert table.at["human-human", "pairs"] == 5 * 3 + 1  # v6 has two human ratings
    assert table.at["b-human", "videos"] == 5


def test_without_milestone_columns_only_levels_are_compared() -> None:
    df = crafted()[["video_id", "rater", "level"]]
    table = agreement_table(df)
    assert table["milestone_agreement"].isna().all()
    assert table["within_one"].notna().all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"level": "5"}, "0..4"),
        ({"level": "two"}, "0..4"),
        ({"stuck_or_looping": "maybe"}, "boolean"),
    ],
)
def test_bad_ratings_are_refused(change, message) -> None:
    df = crafted()
    for column, value in change.items():
        df.loc[0, column] = value
    with pytest.raises(ValueError, match=message):
        clean_ratings(df)


def test_duplicate_rating_is_refused() -> None:
    df = crafted()
    df = pd.concat([df, df.iloc[[0]]])
    with pytest.raises(ValueError, match="twice"):
        agreement_table(df)


def test_agreement_command(tmp_path) -> None:
    path = tmp_path / "ratings.csv"
    crafted().to_csv(path, index=False)
    out = subprocess.run(
        [sys.executable, "-m", "playsuite.cli", "agreement", str(path), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = pd.DataFrame(json.loads(out.stdout))
    expected = agreement_table(crafted())
    assert list(rows["comparison"]) == list(expected["comparison"])
    assert rows["alpha"].to_numpy() == pytest.approx(expected["alpha"].to_numpy())
