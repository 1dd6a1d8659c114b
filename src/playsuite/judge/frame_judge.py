"""The ``frame`` judge: a deterministic, CPU-only milestone report from pixels and the trace.

It is the embedded default's judge (no GPU, no model weights) and a transparent baseline for the
Video-LLM judge. It sees the same 1 fps samples as the Video-LLM judge and the action trace, and
fills what plain image statistics can support; every threshold is a named constant below and
docs/judging.md explains each rule and its blind spots. What it cannot see (score counters,
objectives, victory or game-over screens) is taken from probe values when the trace has them
and is otherwise reported ``false``/0 and listed in ``unobserved``.

Picture features (per 1 fps sample): a 128x72 RGB thumbnail (box-averaged) and its 64-bin colour
histogram. Two samples show the *same picture* when their thumbnails differ by less than
``SAME_RMS`` (root mean square over all thumbnail values, 0..255 scale); they show *different
scenes* when their colour histograms are also more than ``SCENE_TV`` apart (total variation) and
their thumbnails more than ``SCENE_RMS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from playsuite.judge.episode import Episode, Step
from playsuite.judge.result import (
    corrupt_video,
    empty_milestones,
    judgement,
    unjudgeable_video,
)
from playsuite.judge.schema import MAX_DISTINCT_INTERACTIONS
from playsuite.judge.state_judge import probe_findings
from playsuite.judge.video import SampledVideo, VideoError, sample_video

#: Version of the rules below, recorded in every output so a judgement can be traced to them.
METHOD = "frame-v1"
THUMB_W, THUMB_H = 128, 72
SAME_RMS = 2.0  # 0..255 levels: below this two samples are the same picture (codec noise ~0.5)
SCENE_TV = 0.3  # colour-histogram total variation above which two samples are different scenes
SCENE_RMS = 25.0  # ...and thumbnails at least this far apart
RESPONSE_WINDOW_S = 1.0  # a response must show in the first sample after the input, <= 1 s later
RESPONSE_FACTOR = 2.0  # a response must exceed this multiple of the typical idle change
MIN_RESPONSES = 2  # "repeatedly": inputs followed by a visible response
MIN_TITLE_S = 2.0  # an opening static screen held at least this long before input ends it
STUCK_REPEAT_FRACTION = 0.75  # stuck/looping: this share of samples repeat an earlier picture
IDLE_AFTER_S = 1.0  # an input's effects are assumed to last its duration plus this

#: Fields pixels cannot establish; probes may supply them.
PIXEL_BLIND = (
    "score_or_resource_increased",
    "checkpoint_or_objective_completed",
    "win_or_completion_screen",
    "death_or_game_over_count",
)


@dataclass(frozen=True)
class Features:
    """Pairwise picture distances of the samples (what every rule below reads)."""

    times: np.ndarray
    rms: np.ndarray  # (N, N) thumbnail RMS distance, 0..255 levels
    tv: np.ndarray  # (N, N) colour-histogram total variation in [0, 1]

    def same(self, i: int, j: int) -> bool:
        return bool(self.rms[i, j] < SAME_RMS)

    def other_scene(self, i: int, j: int) -> bool:
        return bool(self.tv[i, j] > SCENE_TV and self.rms[i, j] > SCENE_RMS)


def _thumbnail(frame: np.ndarray) -> np.ndarray:
    """128x72 RGB box-average of a sample (uint8; PIL's C resampler, ~0.2 ms a frame)."""
    return np.asarray(Image.fromarray(frame).resize((THUMB_W, THUMB_H), Image.Resampling.BOX))


def _histogram(thumb: np.ndarray) -> np.ndarray:
    """64-bin colour histogram (4 levels per channel) of a thumbnail, normalised to sum 1."""
    q = thumb >> 6
    codes = (q[..., 0].astype(np.int32) << 4) | (q[..., 1] << 2) | q[..., 2]
    counts = np.bincount(codes.ravel(), minlength=64).astype(np.float32)
    return counts / counts.sum()


def features(sampled: SampledVideo) -> Features:
    """Thumbnails and histograms of every sample, and all pairwise distances (BLAS, ~ms)."""
    thumbs8 = [_thumbnail(f) for f in sampled.frames]
    thumbs = np.stack(thumbs8).reshape(len(thumbs8), -1).astype(np.float64)
    sq = (thumbs**2).sum(axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * thumbs @ thumbs.T, 0.0)
    rms = np.sqrt(d2 / thumbs.shape[1])
    hists = np.stack([_histogram(t) for t in thumbs8])
    overlap = np.zeros((len(hists), len(hists)), np.float32)
    for b in range(hists.shape[1]):  # total variation = 1 - histogram intersection
        np.add(overlap, np.minimum(hists[:, b, None], hists[None, :, b]), out=overlap)
    tv = np.clip(1.0 - overlap.astype(np.float64), 0.0, 1.0)
    return Features(times=sampled.times, rms=rms, tv=tv)


def signature(action: dict[str, Any]) -> str:
    """What kind of input an action is: taps and holds of the same keys are one kind."""
    kind = action.get("kind")
    if kind in ("key", "hold"):
        return "keys:" + "+".join(sorted(action.get("keys", [])))
    if kind == "click":
        return f"click:{action.get('button', 'left')}"
    if kind == "scroll":
        return f"scroll:{action.get('direction', '')}"
    return str(kind)


def _duration(step: Step) -> float:
    return max((float(a.get("seconds", 0.0)) for a in step.effective_actions), default=0.0)


@dataclass(frozen=True)
class _Response:
    step: Step
    before: int
    after: int
    change: float


def _responses(f: Features, steps: Sequence[Step], start: int) -> tuple[list[_Response], float]:
    """Inputs followed within a second by a change clearly above the idle level, and that level."""
    times = f.times
    n = len(times)
    active = [
        (s.t_game, s.t_game + _duration(s) + IDLE_AFTER_S) for s in steps if s.effective_actions
    ]
    idle = [
        f.rms[i, i + 1]
        for i in range(start, n - 1)
        if not any(a <= times[i + 1] and times[i] <= b for a, b in active)
    ]
    idle_level = float(np.median(idle)) if len(idle) >= 3 else 0.0
    threshold = max(SAME_RMS, RESPONSE_FACTOR * idle_level)
    out = []
    for step in steps:
        if not step.effective_actions:
            continue
        before = int(np.searchsorted(times, step.t_game + 1e-9, side="right")) - 1
        after = before + 1
        if before < 0 or after >= n or times[after] - step.t_game > RESPONSE_WINDOW_S + 1e-6:
            continue
        change = float(f.rms[before, after])
        if change > threshold:
            out.append(_Response(step, before, after, change))
    return out, idle_level


def _title_end(f: Features, steps: Sequence[Step]) -> tuple[int, Step | None]:
    """Index of the first sample after an opening static screen that input ended, else 0."""
    n = len(f.times)
    k = 0
    while k + 1 < n and f.same(0, k + 1):
        k += 1
    if k + 1 >= n or f.times[k] - f.times[0] < MIN_TITLE_S or not f.other_scene(0, k + 1):
        return 0, None
    cause = [
        s for s in steps if s.effective_actions and f.times[k] - 1e-9 <= s.t_game < f.times[k + 1]
    ]
    return (k + 1, cause[-1]) if cause else (0, None)


def _keys_text(step: Step) -> str:
    return ", ".join(signature(a) for a in step.effective_actions)


class _Report:
    """Milestone fields as they are set, each with the evidence that set it, in order."""

    def __init__(self) -> None:
        self.fields = empty_milestones()
        self.evidence: list[dict[str, Any]] = []

    def flag(self, field: str, t: float, text: str, value: Any = True) -> None:
        self.fields[field] = value
        self.evidence.append({"t_sec": round(float(t), 3), "field": field, "on_screen": text})


def _flag_title(report: _Report, times: np.ndarray, start: int, cause: Step) -> None:
    """An opening static screen that an input ended: a menu or title, then gameplay."""
    held = times[start - 1] - times[0]
    report.flag("menu_or_title_seen", times[0], f"static opening screen held {held:.0f} s")
    report.flag(
        "left_menu_into_gameplay",
        times[start],
        f"new scene after input {_keys_text(cause)} at {cause.t_game:g} s",
    )


def _flag_control(
    report: _Report, times: np.ndarray, responses: list[_Response], in_play: list[_Response]
) -> None:
    """Control, gameplay and distinct interactions, from the inputs the screen responded to."""
    if len(responses) >= MIN_RESPONSES:
        r = responses[0]
        report.flag(
            "player_control_evident",
            times[r.after],
            f"screen responded to {len(responses)} inputs, first {_keys_text(r.step)} "
            f"at {r.step.t_game:g} s",
        )
    if in_play:
        r = in_play[0]
        report.flag("gameplay_happened", times[r.after], f"play responds to {_keys_text(r.step)}")
    kinds = sorted({signature(a) for r in responses for a in r.step.effective_actions})
    if kinds:
        report.flag(
            "distinct_interactions",
            times[responses[0].after],
            f"inputs with a visible response: {', '.join(kinds)}",
            value=min(len(kinds), MAX_DISTINCT_INTERACTIONS),
        )


def _new_scenes(f: Features, start: int, in_play: list[_Response]) -> list[float]:
    """After play demonstrably responded: times of lasting scenes unlike every earlier one."""
    new_scenes: list[float] = []
    if not in_play:
        return new_scenes
    times = f.times
    other = (f.tv > SCENE_TV) & (f.rms > SCENE_RMS)
    for j in range(in_play[0].after + 1, len(times) - 1):
        lasting_new = other[start:j, j].all() and other[start:j, j + 1].all()
        if lasting_new and not any(abs(times[j] - t) < 1.5 for t in new_scenes):
            new_scenes.append(float(times[j]))
    return new_scenes


def _repeats(f: Features) -> list[int]:
    """Samples that repeat a picture some earlier sample showed."""
    same_earlier = np.tril(f.rms < SAME_RMS, k=-1).any(axis=1)
    return [int(j) for j in np.flatnonzero(same_earlier)]


def judge_frames(sampled: SampledVideo, steps: Sequence[Step], name: str = "frame") -> dict:
    """The frame judge's milestone report for one sampled video and its trace."""
    f = features(sampled)
    times = f.times
    n = len(times)
    report = _Report()
    start, cause = _title_end(f, steps)
    if cause is not None:
        _flag_title(report, times, start, cause)
    responses, idle_level = _responses(f, steps, start)
    in_play = [r for r in responses if r.after > start]
    _flag_control(report, times, responses, in_play)
    new_scenes = _new_scenes(f, start, in_play)
    if new_scenes:
        report.flag(
            "new_area_or_level_reached",
            new_scenes[0],
            f"a lasting scene unlike all earlier ones ({len(new_scenes)} in all)",
        )
    repeats = _repeats(f)  # stuck or looping: most samples repeat a picture already shown
    if n >= 4 and len(repeats) >= STUCK_REPEAT_FRACTION * (n - 1):
        report.flag(
            "stuck_or_looping",
            times[repeats[0]],
            f"{len(repeats)} of {n} samples repeat an earlier picture",
        )

    # The game's own probes add what pixels cannot show; a probed new area defers to the screen's.
    m, ev = report.fields, report.evidence
    probes = probe_findings(steps)
    for field, value in probes.fields.items():
        if value and not (field == "new_area_or_level_reached" and m[field]):
            m[field] = value
    ev.extend(
        e for e in probes.evidence if e["field"] != "new_area_or_level_reached" or not new_scenes
    )
    m["milestones"] = ev
    unobserved = [x for x in PIXEL_BLIND if x not in probes.observed]
    return judgement(
        m,
        name,
        method=METHOD,
        unobserved=unobserved,
        features={
            "samples": n,
            "sample_size": list(sampled.size),
            "duration_s": round(sampled.duration, 3),
            "title_until_s": float(times[start]) if cause is not None else None,
            "responses": len(responses),
            "idle_change_rms": round(idle_level, 3),
            "repeat_fraction": round(len(repeats) / max(1, n - 1), 3),
            "new_scenes_s": new_scenes,
            "probes": probes.probes,
        },
    )


def judge_episode_frames(episode: Episode, name: str = "frame") -> dict:
    """Sample the episode's video and judge it; ``no_video`` when nothing was recorded,
    ``corrupt_video`` when a recorded video cannot be read."""
    if (unjudgeable := unjudgeable_video(name, episode)) is not None:
        return unjudgeable
    try:
        sampled = sample_video(episode.video_path)
    except VideoError as exc:
        return corrupt_video(name, exc)
    return judge_frames(sampled, episode.steps, name)
