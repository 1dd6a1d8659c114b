"""Genre N counts only games with a valid run; PyWeek rows follow Table 11; heatmap shows n."""

from __future__ import annotations

import numpy as np
import pandas as pd

from playsuite.analysis import figures
from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.genres import genre_counts, genre_model_means, genre_table
from playsuite.testing.synthetic_scores import SyntheticSpec, synthetic_scores

K0, K3 = "k0-hz0.33-base", "k3-hz0.33-base"
SPEC = BootstrapSpec(resamples=50)


def _scores(corpora: dict[str, int], genres: tuple[str, ...], seed: int = 0) -> pd.DataFrame:
    spec = SyntheticSpec(
        presets={"a": ("VLM", 0.5), "b": ("CUA", 0.0), "c": ("VLA", -0.5)},
        corpora=corpora,
        genres=genres,
        failure_rate=0.0,
        seed=seed,
    )
    return synthetic_scores(spec)


def _crash(df: pd.DataFrame, games) -> pd.DataFrame:
    out = df.copy()
    hit = out["game"].isin(list(games))
    out.loc[hit, "status"] = "crashed"
    out.loc[hit, "level"] = pd.NA
    return out


def test_games_whose_runs_all_crashed_count_nowhere() -> None:
    df = _scores({"itch": 200}, ("Puzzle", "Racing"))
    racing = sorted(df.loc[df["genre"] == "Racing", "game"].unique())
    assert len(racing) >= 70
    # All but 20 Racing games crashed in every run: Racing must fall below a 60-game cut.
    df = _crash(df, racing[20:])
    assert genre_counts(df, "itch")["Racing"] == 20
    table = genre_table(df, K3, K0, min_games=60, spec=SPEC)
    assert "Racing" not in set(table["genre"])
    puzzle = table.set_index("genre").at["Puzzle", "N"]
    assert puzzle == df.loc[df["genre"] == "Puzzle", "game"].nunique()
    # A game with one valid run still counts.
    partly = _crash(_scores({"itch": 200}, ("Puzzle", "Racing")), [])
    one = racing[0]
    mask = (partly["game"] == one) & ~((partly["preset"] == "a") & (partly["condition"] == K0))
    partly.loc[mask, "status"] = "crashed"
    partly.loc[mask, "level"] = pd.NA
    assert genre_counts(partly, "itch")["Racing"] == len(racing)


def test_pyweek_rows_are_the_genres_that_pass_on_any_corpus() -> None:
    itch = _scores({"itch": 300}, ("Puzzle", "Racing"), seed=1)
    py = _scores({"pyweek": 30}, ("Puzzle", "Racing", "Fighting"), seed=2)
    table = genre_table(pd.concat([itch, py], ignore_index=True), K3, K0, 60, SPEC)
    rows = table.set_index(["corpus", "genre"])
    assert set(table.loc[table["corpus"] == "pyweek", "genre"]) == {"Puzzle", "Racing"}
    n_py = py.groupby("genre")["game"].nunique()
    assert rows.at[("pyweek", "Puzzle"), "N"] == n_py["Puzzle"] < 60
    assert not np.isnan(rows.at[("pyweek", "Racing"), "k=0 mean"])
    assert set(table.loc[table["corpus"] == "itch", "genre"]) == {"Puzzle", "Racing"}


def test_heatmap_labels_every_genre_with_its_n() -> None:
    df = _scores({"pyweek": 40}, ("Puzzle", "Racing", "Fighting"), seed=3)
    means = genre_model_means(df, "pyweek", K0)
    counts = genre_counts(df, "pyweek")
    fig = figures.genre_heatmap(means, "t", counts)
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert len(labels) == means.shape[1] == 3
    for genre, label in zip(means.columns, labels, strict=True):
        assert label == f"{genre}\n(n={counts[genre]})"
