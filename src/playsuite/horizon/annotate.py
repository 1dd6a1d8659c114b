"""The annotator: one episode in, its three-level instruction pyramid out (GameHorizon §3.2).

1. Action-aware segmentation cuts the trace into short clips (:mod:`.segment`).
2. Each clip gets a short-horizon *operation* from the served VLM, which sees the clip's sampled
   frames and the inputs sent during it, with the game's controls.
3. Bottom-up merging: the VLM reads the operations in order and says where one medium-horizon
   goal ends and the next begins; a duration-bounded partition turns its votes into *goals*,
   each labelled from its frames, its inputs and its operations. The same again over the goals
   gives the long-horizon *strategies*, labelled from frames and goals only (no inputs).

Every answer is constrained to a JSON Schema and validated (the client's ``chat_json``), so even
a model answering noise yields a well-formed pyramid; a request that fails for good makes the
annotation ``failed`` with its error, never a half-written file. The result is checked by
:mod:`playsuite.records.horizon` when written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playsuite.config import with_defaults
from playsuite.horizon.media import MediaPlan, message
from playsuite.horizon.prompts import HorizonPrompts
from playsuite.horizon.segment import Clip, partition, sample_indices, segment_operations
from playsuite.inference.client import InferenceClient, InferenceError
from playsuite.judge.video import SampledVideo, VideoError, sample_video
from playsuite.records.episode import VIDEO_NAME, EpisodeError, read_meta, read_trace
from playsuite.records.horizon import HORIZON_FORMAT

#: What every annotation request must answer: the instruction alone.
INSTRUCTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["instruction"],
    "properties": {"instruction": {"type": "string", "minLength": 1, "maxLength": 400}},
}


def merge_schema(count: int) -> dict[str, Any]:
    """The merge answer for ``count`` neighbour pairs: exactly that many booleans."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["continues"],
        "properties": {
            "continues": {
                "type": "array",
                "items": {"type": "boolean"},
                "minItems": count,
                "maxItems": count,
            }
        },
    }


def horizon_settings(section: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``horizon`` section of a configuration with the schema's defaults filled in."""
    return with_defaults(dict(section or {}), "config", "horizon")


@dataclass(frozen=True)
class GameText:
    """What the prompts say about the game: its title, context block and controls."""

    title: str
    context: str
    controls: str = "not stated"


@dataclass
class Annotator:
    """A served model bound to the horizon prompts and settings (:func:`horizon_settings`)."""

    name: str
    client: InferenceClient
    prompts: HorizonPrompts
    settings: Mapping[str, Any]
    plan: MediaPlan
    usage: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- requests -------------------------------------------------------------------------------

    def _ask(self, messages: list[dict[str, Any]], schema: dict[str, Any], name: str) -> Any:
        sampling = self.settings["annotate_sampling"]
        answer = self.client.chat_json(
            messages,
            schema,
            name=name,
            json_attempts=int(self.settings["attempts"]),
            temperature=sampling.get("temperature"),
            max_tokens=sampling.get("max_tokens"),
            seed=sampling.get("seed"),
        )
        with self._lock:
            self.usage["requests"] = self.usage.get("requests", 0) + 1
            for key in ("prompt_tokens", "completion_tokens"):
                self.usage[key] = self.usage.get(key, 0) + int(answer.result.usage.get(key, 0))
        return answer.value

    def _instruction(self, text: str, sampled: SampledVideo, frames: Sequence[int]) -> str:
        value = self._ask([message(text, sampled, frames, self.plan)], INSTRUCTION_SCHEMA, "label")
        return str(value["instruction"]).strip() or "(empty)"

    def _votes(self, title: str, lower: str, upper: str, items: Sequence[str]) -> list[bool]:
        """Merge votes for neighbours of ``items``, asked in overlapping windows."""
        window = max(2, int(self.settings["merge_window"]))
        votes: list[bool] = []
        start = 0
        while start < len(items) - 1:
            chunk = items[start : start + window]
            listing = "\n".join(f"{i + 1}. {item}" for i, item in enumerate(chunk))
            text = self.prompts.render(
                "merge", title=title, lower=lower, upper=upper, items=listing, count=len(chunk) - 1
            )
            value = self._ask(
                [{"role": "user", "content": text}], merge_schema(len(chunk) - 1), "merge"
            )
            votes.extend(bool(v) for v in value["continues"])
            start += len(chunk) - 1
        return votes

    def _map(self, fn: Callable[[Any], str], items: Sequence[Any]) -> list[str]:
        workers = max(1, min(self.client.max_concurrency, len(items)))
        with ThreadPoolExecutor(workers, thread_name_prefix="horizon") as pool:
            return list(pool.map(fn, items))

    # -- one episode ----------------------------------------------------------------------------

    def annotate(self, episode_dir: str | Path, game: GameText) -> dict[str, Any]:
        """The annotation document of one episode (``status`` ``failed`` with the reason when the
        episode cannot be annotated or the server fails for good)."""
        episode_dir = Path(episode_dir)
        self.usage = {}
        doc = self._document(episode_dir)
        try:
            meta = read_meta(episode_dir)
            for key in ("corpus", "preset", "condition", "game"):
                if meta.get(key):  # else the directory's coordinates stand
                    doc["episode"][key] = str(meta[key])
            if "agent" in meta:
                doc["episode"]["agent"] = str(meta["agent"])  # type: ignore[typeddict-item]
            steps = sorted(
                read_trace(episode_dir), key=lambda s: (float(s["t_game"]), s.get("step", 0))
            )
            if not steps:
                return self._failed(doc, "the episode has no trace steps")
            video = episode_dir / VIDEO_NAME
            if not video.is_file() or video.stat().st_size == 0:
                return self._failed(doc, "the episode has no video")
            sampled = sample_video(video, fps=float(self.settings["sample_fps"]))
        except (EpisodeError, VideoError) as exc:
            return self._failed(doc, f"{type(exc).__name__}: {exc}")
        try:
            self._pyramid(doc, steps, meta, sampled, game)
        except InferenceError as exc:
            return self._failed(doc, f"inference failed: {exc}")
        doc["usage"] = dict(self.usage)
        return doc

    def _document(self, episode_dir: Path) -> dict[str, Any]:
        parts = episode_dir.resolve().parts
        coords = dict(zip(("corpus", "preset", "condition", "game"), parts[-4:], strict=False))
        return {
            "format": HORIZON_FORMAT,
            "status": "ok",
            "error": None,
            "episode": {k: coords.get(k, "") for k in ("corpus", "preset", "condition", "game")},
            "annotator": self.name,
            "sample_fps": float(self.settings["sample_fps"]),
            "settings": {
                "frames": int(self.settings["frames"]),
                "media": self.plan.kind if self.plan.most else "none",
                "operation_s": list(self.settings["operation_s"]),
                "goal_s": list(self.settings["goal_s"]),
                "strategy_s": list(self.settings["strategy_s"]),
                "sampling": dict(self.settings["annotate_sampling"]),
            },
            "operations": [],
            "goals": [],
            "strategies": [],
            "usage": {},
        }

    def _failed(self, doc: dict[str, Any], error: str) -> dict[str, Any]:
        doc.update(status="failed", error=error, operations=[], goals=[], strategies=[])
        doc["usage"] = dict(self.usage)
        return doc

    def _pyramid(
        self,
        doc: dict[str, Any],
        steps: Sequence[Mapping[str, Any]],
        meta: Mapping[str, Any],
        sampled: SampledVideo,
        game: GameText,
    ) -> None:
        fps = float(self.settings["sample_fps"])
        most = int(self.settings["frames"])
        n_frames = len(sampled)
        low, high = self.settings["operation_s"]
        t_end = meta.get("t_game")
        clips = segment_operations(
            steps,
            float(low),
            float(high),
            t_end=float(t_end) if isinstance(t_end, int | float) else None,
            step_s=meta.get("step_seconds"),
        )

        def input_lines(items: Sequence[Clip]) -> str:
            lines = []
            for clip in items:
                for offset, text in enumerate(clip.actions):
                    t = float(steps[clip.start + offset]["t_game"])
                    lines.append(f"t={t:.1f}s: {text}")
            return "\n".join(lines) or "(none)"

        def frames_of(t0: float, t1: float) -> list[int]:
            return sample_indices(t0, t1, fps, n_frames, most)

        common = {"context": game.context, "fps": f"{fps:g}"}

        def label_clip(clip: Clip) -> str:
            frames = frames_of(clip.t_start, clip.t_end)
            text = self.prompts.render(
                "operation",
                **common,
                controls=game.controls,
                duration=f"{clip.t_end - clip.t_start:.1f}",
                frame_count=len(frames),
                frame_indices=frames,
                actions=input_lines([clip]),
            )
            return self._instruction(text, sampled, frames)

        op_texts = self._map(label_clip, clips)
        operations = [
            {
                "id": f"o{i}",
                "start_step": c.start,
                "end_step": c.end,
                "t_start": round(c.t_start, 3),
                "t_end": round(c.t_end, 3),
                "label": c.label,
                "actions": list(c.actions),
                "frames": frames_of(c.t_start, c.t_end),
                "instruction": text,
            }
            for i, (c, text) in enumerate(zip(clips, op_texts, strict=True))
        ]

        def spans(items: list[dict[str, Any]], upper: str, lower: str, bounds: Sequence[float]):
            listing = [
                f"[{it['t_start']:.1f}-{it['t_end']:.1f}s] {it['instruction']}" for it in items
            ]
            votes = self._votes(game.title, lower, upper, listing)
            durations = [it["t_end"] - it["t_start"] for it in items]
            return partition(durations, votes, float(bounds[0]), float(bounds[1]))

        groups = spans(operations, "goal", "short operations", self.settings["goal_s"])

        def label_goal(group: tuple[int, int]) -> str:
            members = operations[group[0] : group[1]]
            t0, t1 = members[0]["t_start"], members[-1]["t_end"]
            frames = frames_of(t0, t1)
            listing = "\n".join(
                f"[{m['t_start']:.1f}-{m['t_end']:.1f}s] {m['instruction']}" for m in members
            )
            text = self.prompts.render(
                "goal",
                **common,
                controls=game.controls,
                duration=f"{t1 - t0:.1f}",
                frame_count=len(frames),
                frame_indices=frames,
                operations=listing,
                actions=input_lines(clips[group[0] : group[1]]),
            )
            return self._instruction(text, sampled, frames)

        goals = self._spans("g", operations, groups, self._map(label_goal, groups), frames_of)
        top = spans(goals, "strategy", "goals", self.settings["strategy_s"])

        def label_strategy(group: tuple[int, int]) -> str:
            members = goals[group[0] : group[1]]
            t0, t1 = members[0]["t_start"], members[-1]["t_end"]
            frames = frames_of(t0, t1)
            listing = "\n".join(
                f"[{m['t_start']:.1f}-{m['t_end']:.1f}s] {m['instruction']}" for m in members
            )
            text = self.prompts.render(
                "strategy",
                **common,
                duration=f"{t1 - t0:.1f}",
                frame_count=len(frames),
                frame_indices=frames,
                goals=listing,
            )
            return self._instruction(text, sampled, frames)

        strategies = self._spans("s", goals, top, self._map(label_strategy, top), frames_of)
        doc.update(operations=operations, goals=goals, strategies=strategies)

    @staticmethod
    def _spans(
        prefix: str,
        below: list[dict[str, Any]],
        groups: Sequence[tuple[int, int]],
        texts: Sequence[str],
        frames_of: Callable[[float, float], list[int]],
    ) -> list[dict[str, Any]]:
        out = []
        for i, ((a, b), text) in enumerate(zip(groups, texts, strict=True)):
            t0, t1 = below[a]["t_start"], below[b - 1]["t_end"]
            out.append(
                {
                    "id": f"{prefix}{i}",
                    "children": [m["id"] for m in below[a:b]],
                    "t_start": t0,
                    "t_end": t1,
                    "frames": frames_of(t0, t1),
                    "instruction": text,
                }
            )
        return out
