"""``playsuite human rate``: raters answer the milestone questions for the validation videos.

The paper's judge validation (Table 10) has people label the blinded validation videos
(playsuite.judge.validation draws them; ``playsuite human sample`` or rule
``validation_sample``) and compares the judges with them. The rating page asks a rater exactly
what a judge is asked: the milestone fields of ``milestones.schema.json``, each with its
description (what a judge's prompt defines it as); the level is then the Table 9 rule applied to
the answers (:func:`~playsuite.judge.levels.progress_level`), as for a judge, so a rater never
picks a level by feel. Each answer becomes one row of the ratings CSV that ``playsuite
agreement`` and the Table 10 rule read (:func:`~playsuite.judge.agreement.add_rating`, which
keeps several raters writing at once from losing or doubling an answer).

A rater types a name once and is known by a stable pseudonym (playsuite.human.identity) from
then on; each rater sees the videos in an order of their own (seeded by the pseudonym, so the
order effects of a fixed sequence average out over raters) and resumes, after a reload or a
restart of the server, at the first video they have not rated yet.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from playsuite.human.identity import pseudonym
from playsuite.human.web import PageServer, Reply, Request, file_reply, page
from playsuite.judge.agreement import DuplicateRating, add_rating, read_ratings
from playsuite.judge.levels import progress_level
from playsuite.judge.schema import (
    BOOLEAN_FIELDS,
    COUNT_FIELDS,
    MilestoneError,
    milestone_schema,
    validate_milestones,
)

#: A rater's id: ``r-`` and the pseudonym's hash (playsuite.human.identity).
RATER_ID = re.compile(r"^r-[0-9a-f]{10}$")
#: The questions a rater answers: every milestone field but the evidence list.
QUESTION_FIELDS = (*BOOLEAN_FIELDS, *COUNT_FIELDS)


class RatingError(ValueError):
    """An answer that cannot be recorded (the page is told why)."""


def questions() -> list[dict[str, Any]]:
    """The milestone questions in the schema's order: field, type, bounds, description."""
    out = []
    for name, spec in milestone_schema()["properties"].items():
        if name not in QUESTION_FIELDS:
            continue
        question = {"field": name, "type": spec["type"], "description": spec["description"]}
        if spec["type"] == "integer":
            question["minimum"], question["maximum"] = spec.get("minimum", 0), spec.get("maximum")
        out.append(question)
    return out


def rating_row(video_id: str, rater: str, answers: Mapping[str, Any]) -> dict[str, Any]:
    """The ratings CSV row of ``answers`` (every question answered, checked by the milestone
    schema), with the level the Table 9 rule gives them."""
    missing = [f for f in QUESTION_FIELDS if f not in answers]
    if missing:
        raise RatingError(f"unanswered: {', '.join(missing)}")
    milestones = {f: answers[f] for f in QUESTION_FIELDS}
    try:
        validate_milestones({**milestones, "milestones": []})
    except MilestoneError as exc:
        raise RatingError(str(exc)) from None
    row: dict[str, Any] = {"video_id": video_id, "rater": rater}
    row["level"] = progress_level(milestones)
    row.update({f: bool(milestones[f]) for f in BOOLEAN_FIELDS})
    return row


@dataclass
class RatingStudy:
    """The videos to rate (blinded id -> file), the ratings CSV and the study's key."""

    videos: dict[str, Path]
    ratings: Path
    secret: bytes

    @classmethod
    def load(cls, raters: str | Path, ratings: str | Path, secret: bytes) -> RatingStudy:
        """From the raters' list (CSV ``video_id``, ``video``); a video path that is not
        absolute is taken from the working folder, else from beside the list."""
        table = pd.read_csv(raters, dtype=str, keep_default_na=False)
        if {"video_id", "video"} - set(table.columns):
            raise ValueError(f"{raters}: a raters' list needs columns video_id and video")
        videos = {}
        for video_id, video in zip(table["video_id"], table["video"], strict=True):
            path = Path(video)
            if not path.is_absolute() and not path.exists():
                path = Path(raters).parent / path
            if not path.is_file():
                raise FileNotFoundError(f"{raters}: video {video_id}: no file {video}")
            videos[video_id] = path
        if not videos:
            raise ValueError(f"{raters}: no videos to rate")
        return cls(videos, Path(ratings), secret)

    def rater_id(self, name: str) -> str:
        return pseudonym(name, self.secret, "r")

    def order(self, rater: str) -> list[str]:
        ids = sorted(self.videos)
        random.Random(f"playsuite-rating-{rater}").shuffle(ids)
        return ids

    def rated(self, rater: str) -> set[str]:
        if not self.ratings.exists():
            return set()
        done = read_ratings(self.ratings)
        return set(done.loc[done["rater"] == rater, "video_id"].astype(str))

    def progress(self, rater: str) -> dict[str, Any]:
        """The rater's next video (None when done) and how many are done."""
        _check_rater(rater)
        rated = self.rated(rater)
        following = next((v for v in self.order(rater) if v not in rated), None)
        done = len(rated & set(self.videos))
        return {"rater": rater, "next": following, "done": done, "total": len(self.videos)}

    def submit(self, rater: str, video_id: str, answers: Any) -> int:
        """Record ``rater``'s ``answers`` for ``video_id``; the level they give."""
        _check_rater(rater)
        if video_id not in self.videos:
            raise RatingError(f"no video {video_id!r} in this study")
        if not isinstance(answers, dict):
            raise RatingError("answers must be an object")
        row = rating_row(video_id, rater, answers)
        add_rating(self.ratings, row)
        return int(row["level"])


def _check_rater(rater: Any) -> None:
    if not isinstance(rater, str) or not RATER_ID.match(rater):
        raise RatingError(f"not a rater id: {rater!r} (enter your name first)")


def routes(study: RatingStudy) -> dict[tuple[str, str], Callable[[Request], Reply]]:
    """The rating page's routes over ``study``."""
    lock = threading.Lock()  # one server's raters wait on each other here, others on the file

    def rater(request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        try:
            rid = study.rater_id(str(body.get("name", "")))
        except ValueError as exc:
            return Reply.error(str(exc))
        return Reply.json(study.progress(rid))

    def following(request: Request) -> Reply:
        try:
            return Reply.json(study.progress(request.query.get("rater", "")))
        except RatingError as exc:
            return Reply.error(str(exc))

    def rate(request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        rid, video_id = body.get("rater", ""), str(body.get("video_id", ""))
        try:
            with lock:
                level = study.submit(rid, video_id, body.get("answers"))
        except DuplicateRating as exc:
            return Reply.json({"error": str(exc), **study.progress(rid)}, 409)
        except (RatingError, ValueError) as exc:
            return Reply.error(str(exc))
        return Reply.json({"level": level, **study.progress(rid)})

    def video(request: Request) -> Reply:
        video_id = request.path.rsplit("/", 1)[-1].removesuffix(".mp4")
        path = study.videos.get(video_id)
        if path is None:
            return Reply.error(f"no video {video_id!r}", 404)
        return file_reply(path, "video/mp4", request.range)

    return {
        ("GET", "/"): lambda r: Reply(200, page("rate.html"), "text/html; charset=utf-8"),
        ("GET", "/api/questions"): lambda r: Reply.json(questions()),
        ("POST", "/api/rater"): rater,
        ("GET", "/api/next"): following,
        ("POST", "/api/rate"): rate,
        ("GET", "/video/*"): video,
    }


def serve_ratings(
    study: RatingStudy,
    *,
    port: int = 0,
    on_ready: Callable[[str], None] = print,
    until: threading.Event | None = None,
) -> None:
    """Serve the rating page until interrupted (Ctrl-C) or ``until`` is set."""
    stop = until or threading.Event()
    with PageServer(routes(study), port) as server:
        on_ready(server.url)
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
