"""Static inspection pages: an episode's video beside what the agent said and did, and the judge.

One HTML file per episode, no server and no network: the page embeds the trace (each step's raw
response and canonical actions) and the judge's timestamped milestones as JSON and draws a
timeline under the video; clicking a step or milestone seeks the video. Video time is game time
(DESIGN.md: inference pauses are not recorded), so a step's position is its frame index / fps.
An index page lists runs from a scores table, filterable by corpus, preset, condition, genre,
level and status. Debian's Chromium decodes the H.264 episode video directly (checked by the
browser test); should a browser not, the page says so and the seek controls keep working.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import av
import pandas as pd

from playsuite.files import read_json, write_text_atomic
from playsuite.records.episode import (
    META_NAME,
    VIDEO_NAME,
    episode_finished,
    read_meta,
    read_trace,
    video_fps,
)


def template(name: str) -> str:
    """A page template (or a script filled into one, ``run_browser.js``) shipped with the
    package (``playsuite/analysis/templates/``)."""
    return resources.files("playsuite.analysis").joinpath("templates", name).read_text("utf-8")


def fill(text: str, fields: dict[str, str]) -> str:
    """``text`` with each ``__NAME__`` replaced by ``fields[NAME]``, in one pass, so a value that
    happens to contain another placeholder is left as it is."""
    return re.sub(r"__([A-Z]+)__", lambda m: fields.get(m[1], m[0]), text)


def embed_json(obj: Any) -> str:
    """JSON safe inside a <script> element (no closing tag, no HTML comment openers)."""
    text = json.dumps(obj, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def video_info(path: str | os.PathLike[str]) -> tuple[float, float]:
    """(fps, duration in seconds) of a video file, read from the container."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        fps = float(stream.average_rate or stream.guessed_rate or 0) or 0.0
        if stream.duration is not None and stream.time_base is not None:
            duration = float(stream.duration * stream.time_base)
        elif container.duration is not None:
            duration = container.duration / 1_000_000
        else:
            duration = (stream.frames / fps) if fps and stream.frames else 0.0
    return fps, duration


def episode_data(episode_dir: str | os.PathLike[str], judgement: str | None) -> dict[str, Any]:
    """Everything the page shows, as one JSON-able object."""
    ep = Path(episode_dir)
    if not episode_finished(ep):
        raise FileNotFoundError(f"{ep}: no {META_NAME} (not an episode directory)")
    meta = read_meta(ep)
    video = ep / VIDEO_NAME
    fps, duration = video_info(video) if video.exists() else (0.0, 0.0)
    fps = float(video_fps(meta) or fps or 0.0)
    steps = []
    for s in read_trace(ep):
        if fps and s.get("frame") is not None:
            t = float(s["frame"]) / fps
        else:
            t = float(s.get("t_game", 0.0))
        steps.append(
            {
                "step": s.get("step"),
                "t": t,
                "response": s.get("response", ""),
                "actions": s.get("actions", []),
                "invalid": bool(s.get("invalid", False)),
                "latency_s": s.get("latency_s"),
            }
        )
    if not duration and steps:
        duration = max(s["t"] for s in steps)
    milestones, level, judge = [], None, None
    if judgement:
        j = read_json(judgement)
        level, judge = j.get("level"), j.get("judge")
        milestones = sorted(j.get("milestones", []), key=lambda m: float(m.get("t_sec", 0)))
    return {
        "meta": {k: meta.get(k) for k in ("game", "preset", "condition", "status", "error")},
        "fps": fps,
        "duration": duration,
        "steps": steps,
        "milestones": milestones,
        "level": level,
        "judge": judge,
        "has_video": video.exists(),
    }


def write_episode_page(
    episode_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    judgement: str | None = None,
    copy_video: bool = False,
) -> Path:
    """Write the inspection page of one episode; the video is linked (or copied beside it)."""
    out = Path(out)
    data = episode_data(episode_dir, judgement)
    video = Path(episode_dir) / VIDEO_NAME
    if copy_video and video.exists():
        target = out.with_suffix(".mp4")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(video, target)
        src = target.name
    else:
        src = os.path.relpath(video.resolve(), out.resolve().parent)
    title = (
        f"{data['meta'].get('game')} {data['meta'].get('preset')} {data['meta'].get('condition')}"
    )
    html = fill(
        template("episode.html"),
        {
            "TITLE": html_escape(title),
            "VIDEO": html_escape(Path(src).as_posix()),
            "DATA": embed_json(data),
        },
    )
    write_text_atomic(out, html)
    return out


def html_escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def write_index(runs: list[dict[str, Any]], out: str | os.PathLike[str]) -> Path:
    """The filterable index; each run dict has the scores fields and ``page`` (relative URL)."""
    fields = {"DATA": embed_json(runs), "RUNBROWSER": template("run_browser.js")}
    write_text_atomic(out, fill(template("index.html"), fields))
    return Path(out)


def episode_page_name(corpus: str, preset: str, condition: str, game: str) -> str:
    """An episode's page inside the inspection site: its run-directory path, ending ``.html``."""
    return f"{corpus}/{preset}/{condition}/{game}.html"


def run_row(row: Any, page: str | None) -> dict[str, Any]:
    """A scores-table row (a named tuple) as the run lists show it; ``page`` links its page."""
    level = None if pd.isna(row.level) else int(row.level)
    return {
        "corpus": row.corpus,
        "preset": row.preset,
        "condition": row.condition,
        "game": row.game,
        "genre": row.genre,
        "level": level,
        "status": row.status,
        "page": page,
    }


def build_site(
    scores: pd.DataFrame,
    runs_dir: str | os.PathLike[str],
    judgements_dir: str | os.PathLike[str] | None,
    out_dir: str | os.PathLike[str],
) -> Path:
    """Pages for every episode of a scores table that has a directory, plus ``index.html``."""
    out_dir = Path(out_dir)
    runs = []
    for row in scores.itertuples(index=False):
        rel = Path(row.corpus) / row.preset / row.condition / row.game
        ep = Path(runs_dir) / rel
        page = None
        if episode_finished(ep):
            jpath = Path(judgements_dir) / rel.with_suffix(".json") if judgements_dir else None
            page = episode_page_name(row.corpus, row.preset, row.condition, row.game)
            write_episode_page(ep, out_dir / page, str(jpath) if jpath and jpath.exists() else None)
        runs.append(run_row(row, page))
    return write_index(runs, out_dir / "index.html")
