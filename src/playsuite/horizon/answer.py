"""A preset answering the offline question set through the served path.

Each question becomes one chat request: its frames (as images or one clip, within the preset's
limits; :mod:`.media`), then the question and the four options. The answer is constrained to
``{"answer": "A"|"B"|"C"|"D"}`` and validated, so any model, even one answering noise, gives a
choice; a request that fails for good is recorded as a failed answer (wrong, with its error).
The questions file's SHA-256 is kept with the answers, so a table never mixes answers to two
different sets.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from playsuite.horizon.media import FrameCache, MediaPlan, message
from playsuite.horizon.prompts import HorizonPrompts
from playsuite.horizon.questions import LETTERS, option_block
from playsuite.inference.client import InferenceClient, InferenceError
from playsuite.judge.video import VideoError
from playsuite.records.horizon import HORIZON_FORMAT

CHOICE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["answer"],
    "properties": {"answer": {"enum": list(LETTERS)}},
}


USAGE_KEYS = ("requests", "prompt_tokens", "completion_tokens")


def file_sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def answer_questions(
    preset: str,
    questions: Mapping[str, Any],
    questions_sha256: str,
    client: InferenceClient,
    prompts: HorizonPrompts,
    plan: MediaPlan,
    sampling: Mapping[str, Any],
    attempts: int = 3,
) -> dict[str, Any]:
    """The answers document (:mod:`playsuite.records.horizon`) of ``preset`` to ``questions``."""
    frames = FrameCache(float(questions["sample_fps"]))

    def one(q: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, int]]:
        out = {"id": q["id"], "task": q["task"], "game": q["game"]}
        try:
            sampled = frames.get(q["episode"]) if plan.most else None
            shown = min(len(q["frames"]), plan.most) if sampled is not None else 0
            note = (
                f"You see {shown} frames of it, in the order they were recorded."
                if shown
                else "No frames are shown; answer from the text."
            )
            title = q["game"]
            text = prompts.render(
                "question",
                title=title,
                frames_note=note,
                question=q["question"],
                options=option_block(q["options"]),
            )
            reply = client.chat_json(
                [message(text, sampled, q["frames"], plan)],
                CHOICE_SCHEMA,
                name="choice",
                json_attempts=attempts,
                temperature=sampling.get("temperature"),
                max_tokens=sampling.get("max_tokens"),
                seed=sampling.get("seed"),
            )
        except (InferenceError, VideoError) as exc:
            failed = {
                **out,
                "choice": None,
                "correct": False,
                "status": "failed",
                "error": str(exc),
            }
            return failed, {}
        spent = {
            k: int(reply.result.usage.get(k, 0)) for k in ("prompt_tokens", "completion_tokens")
        }
        choice = LETTERS.index(reply.value["answer"])
        ok = {
            **out,
            "choice": choice,
            "correct": choice == q["answer"],
            "status": "ok",
            "error": None,
        }
        return ok, {"requests": 1, **spent}

    items = list(questions["questions"])
    # asked episode by episode, so that each video is decoded once; written in the set's order
    order = sorted(range(len(items)), key=lambda i: (items[i]["episode"], i))
    workers = max(1, min(client.max_concurrency, len(items)))
    with ThreadPoolExecutor(workers, thread_name_prefix="horizon-answer") as pool:
        done = list(pool.map(one, [items[i] for i in order]))
    results = [None] * len(items)
    for i, result in zip(order, done, strict=True):
        results[i] = result
    answers = [answer for answer, _ in results]
    usage = {k: sum(spent.get(k, 0) for _, spent in results) for k in USAGE_KEYS}
    return {
        "format": HORIZON_FORMAT,
        "preset": preset,
        "questions_sha256": questions_sha256,
        "answers": answers,
        "usage": usage,
    }
