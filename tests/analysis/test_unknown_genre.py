"""Games without a genre (an empty catalog field) are a named group, not NaN in every table."""

from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.genres import genre_table
from playsuite.analysis.reference import genre_cells
from playsuite.analysis.scores import UNKNOWN_GENRE, read_scores
from playsuite.testing.synthetic_scores import SyntheticSpec, synthetic_scores, write_scores_tsv


def test_missing_genre_reads_as_unclassified(tmp_path) -> None:
    spec = SyntheticSpec(presets={"a": ("VLM", 0.0), "b": ("CUA", 1.0)}, corpora={"itch": 40})
    df = synthetic_scores(spec)
    untagged = sorted(df["game"].unique())[:10]
    df.loc[df["game"].isin(untagged), "genre"] = ""
    path = tmp_path / "scores.tsv"
    write_scores_tsv(df, str(path))
    scores = read_scores(path)
    assert not scores["genre"].isna().any()
    assert set(scores.loc[scores["game"].isin(untagged), "genre"]) == {UNKNOWN_GENRE}
    table = genre_table(
        scores, "k3-hz0.33-base", "k0-hz0.33-base", min_games=1, spec=BootstrapSpec(resamples=50)
    )
    assert UNKNOWN_GENRE in set(table["genre"])
    assert all(UNKNOWN_GENRE in key or "nan" not in key for key in genre_cells(table))
