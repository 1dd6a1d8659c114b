"""Judge validation: how well judges agree with human raters (the paper's Table 10).

Input: ratings with ``video_id``, ``rater``, ``level`` (0..4) and optionally one column per
boolean milestone field (DESIGN.md "Tables"); a rater whose name starts with ``judge:`` is a
judge, every other rater a human. A missing level (a failed judgement) means "no rating".

For humans alone and for each judge joined to the humans as one more rater, the table gives
Krippendorff's alpha over the levels with the interval (squared-difference) distance, computed
by the ``krippendorff`` package; the share of rating pairs on the same video that are within one
level (human-human pairs, or judge-human pairs), and exactly equal; and milestone agreement: the
share of (pair, boolean field) comparisons where both said the same.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pandas as pd

from playsuite.files import write_text_atomic
from playsuite.judge.schema import BOOLEAN_FIELDS
from playsuite.locks import exclusive_lock, lock_path_for

JUDGE_PREFIX = "judge:"
#: The columns of a ratings CSV this package writes (judges' rows and the rating page's).
RATING_COLUMNS: tuple[str, ...] = ("video_id", "rater", "level", *BOOLEAN_FIELDS)
#: Longest wait for another rater's answer to be written before this one is refused.
RATING_LOCK_WAIT_S = 30.0
COLUMNS = (
    "comparison",
    "raters",
    "videos",
    "pairs",
    "alpha",
    "within_one",
    "exact",
    "milestone_agreement",
)
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


def _bool(value: object) -> float:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return np.nan
    if isinstance(value, bool | np.bool_):
        return float(value)
    if isinstance(value, int | float | np.integer | np.floating) and value in (0, 1):
        return float(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return 1.0
    if text in _FALSE:
        return 0.0
    if text == "":
        return np.nan
    raise ValueError(f"milestone value {value!r} is not a boolean")


def clean_ratings(ratings: pd.DataFrame) -> pd.DataFrame:
    """Check and normalise a ratings table: levels as floats 0..4 (NaN = none), booleans 0/1."""
    missing = {"video_id", "rater", "level"} - set(ratings.columns)
    if missing:
        raise ValueError(f"ratings lack column(s): {', '.join(sorted(missing))}")
    df = ratings.copy()
    df["video_id"] = df["video_id"].astype(str)
    df["rater"] = df["rater"].astype(str).str.strip()
    dup = df[df.duplicated(["video_id", "rater"], keep=False)]
    if not dup.empty:
        first = dup.iloc[0]
        raise ValueError(f"rater {first['rater']!r} rated video {first['video_id']!r} twice")
    raw = df["level"].map(lambda v: np.nan if isinstance(v, str) and not v.strip() else v)
    level = pd.to_numeric(raw, errors="coerce")
    bad = raw.notna() & (level.isna() | ~level.isin([0, 1, 2, 3, 4]))
    if bad.any():
        raise ValueError(f"level must be an integer 0..4, got {raw[bad].iloc[0]!r}")
    df["level"] = level.astype(float)
    for field in BOOLEAN_FIELDS:
        if field in df.columns:
            df[field] = df[field].map(_bool).astype(float)
    return df


def _is_judge(rater: str) -> bool:
    return rater.startswith(JUDGE_PREFIX)


def _alpha(df: pd.DataFrame, raters: list[str]) -> float:
    sub = df[df["rater"].isin(raters)].pivot(index="rater", columns="video_id", values="level")
    sub = sub.dropna(axis=1, thresh=2)  # only videos with at least two ratings carry information
    if sub.shape[1] == 0 or len(raters) < 2:
        return np.nan
    values = sub.to_numpy(dtype=float)
    if np.unique(values[~np.isnan(values)]).size < 2:
        return np.nan  # every rating equal: alpha is undefined
    return float(krippendorff.alpha(reliability_data=values, level_of_measurement="interval"))


def _pairs(df: pd.DataFrame, left: list[str], right: list[str] | None) -> list[tuple[int, int]]:
    """Row-index pairs rating the same video: within ``left`` (right=None) or left x right."""
    out = []
    for _, group in df[df["level"].notna()].groupby("video_id", sort=True):
        a = [i for i, r in zip(group.index, group["rater"], strict=True) if r in left]
        if right is None:
            out.extend(itertools.combinations(a, 2))
        else:
            b = [i for i, r in zip(group.index, group["rater"], strict=True) if r in right]
            out.extend(itertools.product(a, b))
    return out


def _pair_stats(df: pd.DataFrame, pairs: list[tuple[int, int]]) -> tuple[float, float, float]:
    if not pairs:
        return np.nan, np.nan, np.nan
    i, j = (np.array(x) for x in zip(*pairs, strict=True))
    diff = np.abs(df.loc[i, "level"].to_numpy() - df.loc[j, "level"].to_numpy())
    within = float(np.mean(diff <= 1))
    exact = float(np.mean(diff == 0))
    fields = [f for f in BOOLEAN_FIELDS if f in df.columns]
    if not fields:
        return within, exact, np.nan
    a = df.loc[i, fields].to_numpy(dtype=float)
    b = df.loc[j, fields].to_numpy(dtype=float)
    both = ~np.isnan(a) & ~np.isnan(b)
    milestone = float(np.mean(a[both] == b[both])) if both.any() else np.nan
    return within, exact, milestone


def agreement_table(ratings: pd.DataFrame) -> pd.DataFrame:
    """One row for human-human agreement, then one per judge found in ``ratings``."""
    df = clean_ratings(ratings).reset_index(drop=True)
    raters = sorted(df["rater"].unique())
    humans = [r for r in raters if not _is_judge(r)]
    judges = [r for r in raters if _is_judge(r)]
    if len(humans) < 1:
        raise ValueError("ratings hold no human rater (names not starting with 'judge:')")
    rows = []
    pairs = _pairs(df, humans, None)
    rows.append(
        {
            "comparison": "human-human",
            "raters": len(humans),
            "videos": int(
                df.loc[df["rater"].isin(humans) & df["level"].notna(), "video_id"].nunique()
            ),
            "pairs": len(pairs),
            "alpha": _alpha(df, humans),
            **dict(
                zip(
                    ("within_one", "exact", "milestone_agreement"),
                    _pair_stats(df, pairs),
                    strict=True,
                )
            ),
        }
    )
    for judge in judges:
        pairs = _pairs(df, [judge], humans)
        rows.append(
            {
                "comparison": f"{judge[len(JUDGE_PREFIX) :]}-human",
                "raters": len(humans) + 1,
                "videos": len({df.at[i, "video_id"] for i, _ in pairs}),
                "pairs": len(pairs),
                "alpha": _alpha(df, [*humans, judge]),
                **dict(
                    zip(
                        ("within_one", "exact", "milestone_agreement"),
                        _pair_stats(df, pairs),
                        strict=True,
                    )
                ),
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def read_ratings(path: str | Path) -> pd.DataFrame:
    """Read a ratings CSV (DESIGN.md "Tables") keeping every value as text until checked."""
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    except FileNotFoundError:
        raise FileNotFoundError(f"ratings file not found: {path}") from None


class DuplicateRating(ValueError):
    """The rater has already rated the video: the first answer stands."""


def add_rating(path: str | Path, row: Mapping[str, Any]) -> None:
    """Add one rater's answer for one video to the ratings CSV ``path`` (created with the
    :data:`RATING_COLUMNS` header when absent).

    Several raters' pages, in one server or in several, may answer at the same moment: under an
    exclusive lock on ``path.lock`` the file is read, the answer checked against it (a second
    answer of the same rater for the same video raises :class:`DuplicateRating`), and the whole
    file written anew atomically, so no answer is lost, none is doubled, and a crash leaves the
    previous file whole. A file whose header is not :data:`RATING_COLUMNS` is refused rather
    than mixed with.
    """
    path = Path(path)
    values = {k: row.get(k) for k in RATING_COLUMNS}
    clean_ratings(pd.DataFrame([values]))  # a level out of range, a field that is not boolean
    with exclusive_lock(lock_path_for(path), wait_s=RATING_LOCK_WAIT_S, poll_s=0.02):
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if text.strip():
            header = next(csv.reader([text.splitlines()[0]]))
            if tuple(header) != RATING_COLUMNS:
                raise ValueError(
                    f"{path}: columns {header} are not the rating page's {list(RATING_COLUMNS)}"
                )
            done = read_ratings(path)
            same = (done["video_id"] == str(values["video_id"])) & (
                done["rater"] == str(values["rater"])
            )
            if same.any():
                raise DuplicateRating(f"{values['rater']} has already rated {values['video_id']}")
        else:
            text = ",".join(RATING_COLUMNS) + "\n"
        line = io.StringIO()
        csv.writer(line, lineterminator="\n").writerow(
            [
                "" if v is None else str(v).lower() if isinstance(v, bool) else v
                for v in values.values()
            ]
        )
        if not text.endswith("\n"):
            text += "\n"
        write_text_atomic(path, text + line.getvalue())
