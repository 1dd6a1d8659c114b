"""The judge output file (DESIGN.md "Judge output") and its failure form.

A judgement is the milestone object plus ``level`` (always computed here from the milestones with
the Table 9 rule, never taken from a judge), ``judge`` and ``status: "ok"``. A judge that could not
produce a valid answer writes ``status: "failed"`` with the error and no level: a failure must
never read as a level-0 episode.
"""

from __future__ import annotations

import os
from typing import Any

from playsuite.files import read_json, write_json_atomic
from playsuite.judge.episode import META, CorruptEpisode, Episode, EpisodeError
from playsuite.judge.levels import progress_level
from playsuite.judge.schema import (
    BOOLEAN_FIELDS,
    COUNT_FIELDS,
    milestone_schema,
    validate_milestones,
)

#: Judgement statuses: ``ok`` has a level; the others record why there is none.
OK = "ok"
FAILED = "failed"  # the judge ran but gave no valid answer
NO_VIDEO = "no_video"  # the episode recorded no frames (e.g. the game never launched)
NO_PROBES = "no_probes"  # the state judge found no probe values in the trace
NO_EPISODE = "no_episode"  # the episode directory or its meta.json is missing
#: Damaged evidence: something was recorded and can no longer be read. Kept apart from the
#: ``no_*`` statuses so a damaged episode is seen and repaired, never read as "nothing happened".
CORRUPT_VIDEO = "corrupt_video"  # frames were recorded; the video is missing, empty or undecodable
CORRUPT_META = "corrupt_meta"  # meta.json is there but not a JSON object
CORRUPT_TRACE = "corrupt_trace"  # trace.jsonl is there but a line is malformed


def empty_milestones() -> dict[str, Any]:
    """Every field false / 0, no evidence: the starting point of the rule-based judges."""
    out: dict[str, Any] = dict.fromkeys(BOOLEAN_FIELDS, False)
    out.update(dict.fromkeys(COUNT_FIELDS, 0))
    out["milestones"] = []
    return out


def judgement(milestones: dict[str, Any], judge: str, **extra: Any) -> dict[str, Any]:
    """Validated milestones + level + judge + status ``ok`` (+ ``extra`` keys after them)."""
    fields = {k: milestones[k] for k in milestone_schema()["properties"] if k in milestones}
    fields["milestones"] = sorted(fields.get("milestones", []), key=lambda m: m["t_sec"])
    validate_milestones(fields)
    return {**fields, "level": progress_level(fields), "judge": judge, "status": OK, **extra}


def failed(judge: str, status: str, error: str, **extra: Any) -> dict[str, Any]:
    """A judgement without a level: ``status`` says why (``failed``, ``no_video``...)."""
    if status == OK:
        raise ValueError("a failed judgement cannot have status 'ok'")
    return {"judge": judge, "status": status, "error": error, **extra}


def episode_unreadable(judge: str, exc: EpisodeError) -> dict[str, Any]:
    """The judgement of an episode that could not be loaded: ``corrupt_meta`` or
    ``corrupt_trace`` for a damaged file, ``no_episode`` for a missing directory or meta.json."""
    if isinstance(exc, CorruptEpisode):
        status = CORRUPT_META if exc.file.name == META else CORRUPT_TRACE
        return failed(judge, status, str(exc))
    return failed(judge, NO_EPISODE, str(exc))


def recorded_frames(episode: Episode) -> int:
    """Frames the episode's ``meta.json`` says the video holds (0 when it does not say)."""
    try:
        return int(episode.meta.get("frames") or 0)
    except (TypeError, ValueError):
        return 0


def unjudgeable_video(judge: str, episode: Episode) -> dict[str, Any] | None:
    """Why the episode's video cannot be judged before decoding it, or None.

    ``no_video`` only when the episode recorded no frames; a missing or empty video of an episode
    that recorded some is ``corrupt_video``.
    """
    if episode.has_video:
        return None
    frames = recorded_frames(episode)
    if frames:
        message = f"{episode.video_path}: missing or empty, but meta.json records {frames} frames"
        return failed(judge, CORRUPT_VIDEO, message)
    return failed(judge, NO_VIDEO, f"no video in {episode.path} (status {episode.status})")


def corrupt_video(judge: str, exc: Exception) -> dict[str, Any]:
    """The judgement of a video file that is there but cannot be decoded."""
    return failed(judge, CORRUPT_VIDEO, str(exc))


def write_judgement(path: str | os.PathLike[str], obj: dict[str, Any]) -> None:
    write_json_atomic(path, obj)


def read_judgement(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a judgement file; an ``ok`` one is re-validated and its level checked."""
    obj = read_json(path)
    if not isinstance(obj, dict) or "status" not in obj or "judge" not in obj:
        raise ValueError(f"{path}: not a judgement (needs 'judge' and 'status')")
    if obj["status"] == OK:
        validate_milestones(obj)
        if obj.get("level") != progress_level(obj):
            raise ValueError(f"{path}: level {obj.get('level')} does not follow its milestones")
    return obj
