"""Genre statistics (paper Tables 3 and 11, Figures 11-12, genre-ranking agreement).

A genre's N counts the games with at least one valid (``ok``) scored run: a game whose every run
crashed is counted nowhere, so crashed games cannot carry a genre over the cut. Genres with fewer
than a configurable number of games (the paper: 60) are left out of the tables: their means are
too noisy to compare. As in the paper's Table 11, a genre that passes the cut on any corpus is
reported on every corpus that has it, with that corpus's (possibly small) N: the paper's PyWeek
genres are all below 60 games, yet its table lists them for the genres that pass on itch.io.
Means pool every valid evaluation of a genre's games across models; intervals resample games.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from playsuite.analysis.bootstrap import BootstrapSpec, pooled, ratio_bootstrap, stack
from playsuite.analysis.scores import (
    corpus_games,
    game_genres,
    level_matrix,
    ordered_presets,
    partial_plus,
    valid,
)
from playsuite.config import Condition


def genre_counts(df: pd.DataFrame, corpus: str) -> pd.Series:
    """Games per genre of a corpus, counting only games with at least one valid run; largest
    first (ties by name)."""
    counts = game_genres(valid(df), corpus).value_counts()
    return counts.sort_index().sort_values(ascending=False, kind="stable")


def frequent_genres(df: pd.DataFrame, corpus: str, min_games: int) -> pd.Series:
    """Number of games per genre for genres with at least ``min_games`` games, largest first."""
    counts = genre_counts(df, corpus)
    return counts[counts >= min_games]


def reported_genres(df: pd.DataFrame, corpus: str, min_games: int) -> pd.Series:
    """The genre-table rows of a corpus: genres that pass the cut on any corpus, with this
    corpus's N (games with a valid run), largest first; genres the corpus lacks are left out."""
    passing: set[str] = set()
    for other in df["corpus"].unique():
        passing |= set(frequent_genres(df, other, min_games).index)
    counts = genre_counts(df, corpus)
    return counts[counts.index.isin(sorted(passing))]


def genre_table(
    df: pd.DataFrame,
    with_history: str,
    without_history: str,
    min_games: int,
    spec: BootstrapSpec,
) -> pd.DataFrame:
    """Rows (corpus, genre, N); mean and Partial+ (%) for both conditions, with CIs."""
    presets = ordered_presets(df)
    conds = {
        f"k={Condition.parse(without_history).history_k}": without_history,
        f"k={Condition.parse(with_history).history_k}": with_history,
    }
    rows = []
    for corpus in sorted(df["corpus"].unique()):
        games = corpus_games(df, corpus)
        genre_of = game_genres(df, corpus).reindex(games).to_numpy()
        counts = reported_genres(df, corpus, min_games)
        if counts.empty:
            continue
        pairs, names = [], []
        for label, cond in conds.items():
            x = level_matrix(df, corpus, cond, presets, games)
            for stat, values in (("mean", x), ("Partial+ (%)", 100.0 * partial_plus(x))):
                for genre in counts.index:
                    masked = np.where((genre_of == genre)[:, None], values, np.nan)
                    pairs.append(pooled(masked))
                    names.append((genre, f"{label} {stat}"))
        num, den = stack(*pairs)
        est = ratio_bootstrap(num, den, spec)
        by_genre: dict[str, dict[str, float]] = {g: {} for g in counts.index}
        for i, (genre, col) in enumerate(names):
            by_genre[genre][col] = est.point[i]
            by_genre[genre][f"{col} low"] = est.low[i]
            by_genre[genre][f"{col} high"] = est.high[i]
        for genre, n in counts.items():
            rows.append({"corpus": corpus, "genre": genre, "N": int(n), **by_genre[genre]})
    return pd.DataFrame(rows)


def genre_model_means(df: pd.DataFrame, corpus: str, condition: str) -> pd.DataFrame:
    """Presets x all genres of a corpus: mean level (for the heatmaps); NaN where no data."""
    presets = ordered_presets(df)
    games = corpus_games(df, corpus)
    genre_of = game_genres(df, corpus).reindex(games)
    x = level_matrix(df, corpus, condition, presets, games)
    frame = pd.DataFrame(x, index=games, columns=presets)
    frame["genre"] = genre_of.to_numpy()
    means = frame.groupby("genre").mean().T
    # Largest genre first; genres with no valid run at all (every game crashed) go last.
    counts = genre_counts(df, corpus)
    order = list(counts.index) + sorted(set(means.columns) - set(counts.index))
    return means[order]


def genre_rank_agreement(df: pd.DataFrame, condition: str, min_games: int) -> pd.DataFrame:
    """Spearman rho between each frequent genre's model ranking and the overall ranking."""
    rows = []
    for corpus in sorted(df["corpus"].unique()):
        presets = ordered_presets(df)
        games = corpus_games(df, corpus)
        x = level_matrix(df, corpus, condition, presets, games)
        with np.errstate(all="ignore"):
            overall = np.nanmean(x, axis=0)
        means = genre_model_means(df, corpus, condition)
        for genre, n in frequent_genres(df, corpus, min_games).items():
            g = means[genre].to_numpy()
            ok = ~np.isnan(g) & ~np.isnan(overall)
            rho = np.nan
            if ok.sum() >= 3 and np.ptp(g[ok]) > 0 and np.ptp(overall[ok]) > 0:
                rho = float(stats.spearmanr(g[ok], overall[ok]).statistic)
            rows.append(
                {
                    "corpus": corpus,
                    "genre": genre,
                    "N": int(n),
                    "models": int(ok.sum()),
                    "spearman": rho,
                }
            )
    return pd.DataFrame(rows, columns=["corpus", "genre", "N", "models", "spearman"])


def agreement_range(table: pd.DataFrame) -> pd.DataFrame:
    """Per corpus: the min-max of the genre Spearman coefficients (as the paper quotes it)."""
    if table.empty:
        return pd.DataFrame(columns=["corpus", "genres", "spearman min", "spearman max"])
    g = table.groupby("corpus")["spearman"]
    return pd.DataFrame(
        {
            "corpus": g.min().index,
            "genres": g.count().to_numpy(),
            "spearman min": g.min().to_numpy(),
            "spearman max": g.max().to_numpy(),
        }
    )
