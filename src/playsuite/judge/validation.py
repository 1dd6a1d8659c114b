"""The judge-validation set (paper Table 10): the played episodes that raters and judges see.

The paper validates its judges on a fixed number of videos per corpus (45 itch.io + 15 PyWeek),
drawn so that they span the evaluated presets and both history conditions, and rated by people
who do not know which model played or under which condition. This module makes that set from
the play shards' manifests:

- only episodes that ended ``ok`` and have a non-empty video are candidates;
- per corpus, episodes are taken one per (preset, condition) stratum in turn: every preset once
  (with the conditions alternating between presets) before any preset is taken twice, and games
  not yet in the set are preferred, so even a small sample covers as many models, both
  conditions and as many games as it can;
- the draw depends only on the candidates and the seed;
- each sampled episode gets a blinded id (``v001``...) in a random order, so neither the id nor
  the raters' list (``video_id``, ``video``: a copy of the video under the id) reveals the model,
  condition or game; the key from id to episode is written to a separate file.

Validation judges then judge the sampled episodes (rule ``validation_judge``), and their answers
become rating rows (:func:`judge_ratings`) next to the human ones for
:func:`playsuite.judge.agreement.agreement_table`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from playsuite.config import Condition, ConfigError, schema_default
from playsuite.judge.agreement import JUDGE_PREFIX, RATING_COLUMNS
from playsuite.judge.episode import VIDEO
from playsuite.judge.result import OK, read_judgement
from playsuite.judge.schema import BOOLEAN_FIELDS
from playsuite.records.manifest import read_manifest

#: The key from blinded id to episode (kept away from raters).
SAMPLE_COLUMNS = ("video_id", "corpus", "preset", "condition", "game", "episode_dir")
#: What raters get: the blinded id and the video copied under that id.
RATER_COLUMNS = ("video_id", "video")


@dataclass(frozen=True)
class ValidationSettings:
    """The ``validation:`` section of the workflow configuration."""

    judges: tuple[str, ...]
    per_corpus: dict[str, int]
    conditions: tuple[str, ...]
    seed: int


def validation_settings(config: Mapping[str, Any]) -> ValidationSettings | None:
    """The validation settings, or None when the section is absent or null (no validation set).

    ``conditions`` defaults to the main analysis's two history conditions; ``seed`` to the
    workflow's. Corpora and conditions must be configured ones.
    """
    raw = config.get("validation")
    if not raw:
        return None
    per_corpus = dict(raw.get("per_corpus") or schema_default("config", "validation", "per_corpus"))
    unknown = sorted(set(per_corpus) - set(config["corpora"]))
    if unknown:
        raise ConfigError(
            f"validation.per_corpus names corpora that are not configured: {', '.join(unknown)} "
            f"(configured: {', '.join(config['corpora'])})"
        )
    main = (config.get("analysis") or {}).get("main") or {}
    conditions = tuple(
        raw.get("conditions")
        or (
            main.get("without_history", "k0-hz0.33-base"),
            main.get("with_history", "k3-hz0.33-base"),
        )
    )
    for name in conditions:
        Condition.parse(name)
        if name not in config["conditions"]:
            raise ConfigError(f"validation condition {name!r} is not under conditions:")
    return ValidationSettings(
        judges=tuple(raw["judges"]),
        per_corpus={c: int(n) for c, n in per_corpus.items()},
        conditions=conditions,
        seed=int(raw.get("seed", config.get("seed", 0))),
    )


@dataclass(frozen=True)
class Candidate:
    """A played episode that may enter the validation set."""

    corpus: str
    preset: str
    condition: str
    game: str
    episode_dir: str


def candidates(manifests: Iterable[str | Path]) -> list[Candidate]:
    """Episodes of play shard manifests that ended ``ok`` with a non-empty video."""
    out = []
    for manifest in manifests:
        for row in read_manifest(manifest):
            episode = Path(row.episode_dir)
            video = episode / VIDEO
            if row.status != OK or not video.is_file() or video.stat().st_size == 0:
                continue
            corpus, preset, condition, game = episode.parts[-4:]
            out.append(Candidate(corpus, preset, condition, game, str(episode)))
    return out


def _draw_corpus(pool: Sequence[Candidate], n: int, rng: random.Random) -> list[Candidate]:
    """``n`` episodes of one corpus, one per (preset, condition) stratum in turn."""
    strata: dict[tuple[str, str], list[Candidate]] = {}
    for c in sorted(pool, key=lambda c: (c.preset, c.condition, c.game, c.episode_dir)):
        strata.setdefault((c.preset, c.condition), []).append(c)
    for members in strata.values():
        rng.shuffle(members)
    presets = sorted({p for p, _ in strata})
    rng.shuffle(presets)
    conditions = {p: sorted(c for q, c in strata if q == p) for p in presets}
    offset = rng.randrange(2)
    picked: list[Candidate] = []
    games: set[str] = set()
    rnd = 0
    while len(picked) < n and any(strata.values()):
        for i, preset in enumerate(presets):
            if len(picked) == n:
                break
            conds = conditions[preset]
            # rotate through this preset's conditions; neighbouring presets start on different ones
            for step in range(len(conds)):
                members = strata[(preset, conds[(i + offset + rnd + step) % len(conds)])]
                if members:
                    fresh = next((m for m in members if m.game not in games), members[0])
                    members.remove(fresh)
                    picked.append(fresh)
                    games.add(fresh.game)
                    break
        rnd += 1
    return picked


def draw_sample(
    pool: Iterable[Candidate], per_corpus: Mapping[str, int], seed: int
) -> tuple[pd.DataFrame, dict[str, int]]:
    """The validation set (columns :data:`SAMPLE_COLUMNS`, ordered by blinded id) and, per
    corpus, how many episodes it lacks because fewer valid ones were played."""
    rng = random.Random(f"playsuite-validation-{seed}")
    by_corpus: dict[str, list[Candidate]] = {}
    for c in pool:
        by_corpus.setdefault(c.corpus, []).append(c)
    picked: list[Candidate] = []
    short = {}
    for corpus in sorted(per_corpus):
        got = _draw_corpus(by_corpus.get(corpus, []), per_corpus[corpus], rng)
        if len(got) < per_corpus[corpus]:
            short[corpus] = per_corpus[corpus] - len(got)
        picked.extend(got)
    rng.shuffle(picked)  # the ids carry no order of corpus, preset or condition
    width = max(3, len(str(len(picked))))
    rows = [
        {
            "video_id": f"v{i:0{width}d}",
            "corpus": c.corpus,
            "preset": c.preset,
            "condition": c.condition,
            "game": c.game,
            "episode_dir": c.episode_dir,
        }
        for i, c in enumerate(picked, start=1)
    ]
    return pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS)), short


def write_validation_set(
    sample: pd.DataFrame, sample_path: str | Path, raters_path: str | Path, videos: str | Path
) -> None:
    """Write the key (``sample_path``, TSV), the videos under their blinded ids (``videos``/
    ``{video_id}.mp4``, hard links where the file system allows) and the raters' list
    (``raters_path``, CSV: ``video_id``, ``video``), each atomically. Raters get only the last
    two: nothing in them names the preset, condition or game."""
    import os
    import shutil

    from playsuite.files import atomic_dir, write_text_atomic

    videos = Path(videos)
    with atomic_dir(videos) as tmp:
        for row in sample.itertuples():
            source, copy = Path(row.episode_dir) / VIDEO, tmp / f"{row.video_id}.mp4"
            try:
                os.link(source, copy)  # same file system: no second copy of the video
            except OSError:
                shutil.copyfile(source, copy)
    raters = sample.assign(video=[str(videos / f"{v}.mp4") for v in sample["video_id"]])
    write_text_atomic(raters_path, raters[list(RATER_COLUMNS)].to_csv(index=False))
    write_text_atomic(sample_path, sample.to_csv(sep="\t", index=False))


def read_sample(path: str | Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


def judge_ratings(
    judge: str, sample: pd.DataFrame, manifests: Iterable[str | Path]
) -> pd.DataFrame:
    """A validation judge's answers as rating rows (``video_id``, ``rater`` = ``judge:NAME``,
    ``level``, the nine boolean fields): empty level and fields where it gave no judgement."""
    from playsuite.records.manifest import read_judge_manifest

    video_of = dict(zip(sample["episode_dir"], sample["video_id"], strict=True))
    rows = []
    for manifest in manifests:
        for entry in read_judge_manifest(manifest):
            video_id = video_of.get(entry["episode_dir"])
            if video_id is None:
                continue
            row: dict[str, Any] = {"video_id": video_id, "rater": f"{JUDGE_PREFIX}{judge}"}
            obj = read_judgement(entry["judgement"])
            ok = obj["status"] == OK
            row["level"] = int(obj["level"]) if ok else None
            for field in BOOLEAN_FIELDS:
                row[field] = bool(obj[field]) if ok else None
            rows.append(row)
    return pd.DataFrame(rows, columns=list(RATING_COLUMNS))


#: What the agreement table says when there are judge outputs but no human ratings.
NO_RATINGS = (
    "No human ratings (analysis.ratings is unset): the validation judges' answers are in "
    "results/validation/judge_ratings.csv; agreement needs the raters' CSV."
)


def validation_agreement(
    judges: pd.DataFrame, humans: pd.DataFrame | None
) -> tuple[pd.DataFrame, str | None]:
    """Table 10 from the validation judges' rating rows and the human ratings, and a note.

    With human ratings: :func:`~playsuite.judge.agreement.agreement_table` over both (a judge that
    also appears in the ratings CSV is refused, as a rater who rated a video twice). Without:
    one row per judge with the videos it judged and no agreement figures, and the note says why.
    """
    from playsuite.judge.agreement import COLUMNS, agreement_table

    if humans is not None and not humans.empty:
        both = pd.concat([humans.astype(object), judges.astype(object)], ignore_index=True)
        return agreement_table(both), None
    rows = [{"comparison": "human-human", "raters": 0, "videos": 0, "pairs": 0}]
    for rater, group in judges.groupby("rater", sort=True):
        rows.append(
            {
                "comparison": f"{rater[len(JUDGE_PREFIX) :]}-human",
                "raters": 1,
                "videos": int(group["level"].notna().sum()),
                "pairs": 0,
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS)), NO_RATINGS
