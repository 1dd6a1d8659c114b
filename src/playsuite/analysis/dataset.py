"""Episodes as a Hugging Face dataset: Parquet tables ``datasets.load_dataset`` opens, and a card.

Researchers who want the recordings for training or for their own judges should not have to
learn the episode directory. This writes a campaign's episodes (any episode directory: a model's,
a baseline's, one recorded by hand) as three tables of one dataset, each a config of its card:

- ``frames`` (the default config): the pictures the judge looks at, one row each. They come from
  :func:`playsuite.judge.video.sample_video`, the judges' own sampling (one frame per second of
  game time, at most 512x288), so a model trained or evaluated on them sees what the judge saw.
  The ``image`` column is a ``datasets`` Image feature (JPEG or PNG bytes), decoded to a PIL image
  on access.
- ``steps``: one row per agent step: the raw model response, the canonical actions (JSON) it was
  parsed into, whether it was invalid, its latency, the probes read then.
- ``episodes``: one row per episode: what was played (corpus, game, genre, runtime, preset and
  model, condition, seed), how it ended (status, steps, game time), the judge's verdict where one
  exists (status, level, milestones), and ``meta.json`` whole.

The tables join on ``episode_id`` (``corpus/preset/condition/game``); ``frames`` and ``steps``
repeat the few coordinates one filters by. The Arrow schema of each file carries the ``datasets``
features (``huggingface`` schema metadata), which is how ``load_dataset("parquet", ...)`` knows
the image column. Everything is written into a temporary folder that replaces the target only
once complete (:func:`playsuite.files.atomic_dir`). An episode that cannot be read (no or a
damaged ``meta.json`` or trace) is left out and named, with the reason, in the card and in the
returned :class:`ExportSummary`; a video that cannot be decoded, or a judgement that cannot be
read, keeps the episode and says so in its row.
"""

from __future__ import annotations

import bisect
import io
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from playsuite import __version__
from playsuite.config import Condition, ConfigError
from playsuite.files import atomic_dir, write_text_atomic
from playsuite.judge.episode import Episode
from playsuite.judge.levels import level_name
from playsuite.judge.result import OK, read_judgement
from playsuite.judge.video import MAX_SIZE, SAMPLE_FPS, VideoError, sample_video
from playsuite.records.episode import (
    META_NAME,
    VIDEO_NAME,
    EpisodeError,
    EpisodeMeta,
    TraceStep,
    read_meta,
    read_trace,
)
from playsuite.records.scores import read_scores_file

#: Image encodings of the ``frames`` table: JPEG (small) or PNG (the decoded samples exactly).
IMAGE_FORMATS = ("jpeg", "png")
DEFAULT_IMAGE_FORMAT = "jpeg"
DEFAULT_JPEG_QUALITY = 90
#: A Parquet file of a table is closed and the next one begun past this size.
DEFAULT_SHARD_BYTES = 512 * 1024 * 1024
#: Rows are buffered and written as one row group once they hold about this many bytes.
ROW_GROUP_BYTES = 32 * 1024 * 1024
ROW_GROUP_ROWS = 50_000
SPLIT = "train"
CARD_NAME = "README.md"
#: Tables in the order the card lists them; the first is the default config.
TABLE_NAMES = ("frames", "steps", "episodes")


@dataclass(frozen=True)
class Column:
    """One column of a table: its name, its ``datasets`` dtype (``image`` or a Value dtype) and
    what it holds (the card's column list)."""

    name: str
    dtype: str
    doc: str


_KEY = (
    Column("episode_id", "string", "`corpus/preset/condition/game`: joins the three tables"),
    Column("corpus", "string", "corpus the game belongs to"),
    Column("game", "string", "game id in its corpus"),
    Column("preset", "string", "what played: a model preset or a baseline (config/models.yaml)"),
    Column("condition", "string", "condition name `k{K}-hz{HZ}-{variant}[+setting=value...]`"),
)

FRAME_COLUMNS: tuple[Column, ...] = (
    *_KEY,
    Column("level", "int32", "the judge's progress level 0-4 of the episode (null: none)"),
    Column("sample", "int32", "index of the frame in the episode's judge sampling"),
    Column("t", "float64", "game time (s) the frame shows"),
    Column("image", "image", "the frame, at most 512x288, as the judge samples it"),
    Column(
        "step",
        "int32",
        "the latest agent step at or before `t` (a step at exactly `t` saw this picture; its "
        "actions show in later frames); null before the first step",
    ),
)

STEP_COLUMNS: tuple[Column, ...] = (
    *_KEY,
    Column("step", "int32", "step number in the episode, from 0"),
    Column("t_game", "float64", "game time (s) at which the step's actions were applied"),
    Column("frame", "int64", "index of the video frame shown then (null: not recorded)"),
    Column("sample", "int32", "the judge frame (`frames.sample`) at or just before `t_game`"),
    Column("response", "string", "the model's raw answer (a baseline's own text, or empty)"),
    Column("actions", "string", "JSON list of the canonical actions parsed from the response"),
    Column("invalid", "bool", "the response could not be parsed (its action was a no-op)"),
    Column("latency_s", "float64", "seconds the answer took"),
    Column("image_width", "int32", "width of the image the model saw (null: not recorded)"),
    Column("image_height", "int32", "height of the image the model saw"),
    Column("probes", "string", "JSON object of the game's probe values read at the step"),
    Column("info", "string", "JSON object of what the policy reported (token usage...)"),
)

EPISODE_COLUMNS: tuple[Column, ...] = (
    *_KEY,
    Column("genre", "string", "the game's genre (from the scores table; null: unknown)"),
    Column("runtime", "string", "pygame, browser or native"),
    Column("family", "string", "model family of the preset (`baseline` for baselines)"),
    Column(
        "model",
        "string",
        "Hugging Face id of the model that answered, or a hosted endpoint's model name "
        "(null: baseline or person)",
    ),
    Column("model_revision", "string", "pinned revision of that model (null: none pinned)"),
    Column("history_k", "int32", "past steps shown in each prompt"),
    Column("hz", "float64", "agent steps per second of game time"),
    Column("variant", "string", "prompt variant"),
    Column("seed", "int64", "the episode's seed (the same for every preset on a game)"),
    Column("status", "string", "how the episode ended: ok, crashed, timeout, launch_failed..."),
    Column("error", "string", "the error that ended it, if any"),
    Column("stop_reason", "string", "the cap that stopped it: steps, game_time, frames..."),
    Column("steps", "int32", "agent steps taken"),
    Column("video_frames", "int64", "frames in the episode's video"),
    Column("video_fps", "float64", "the video's frame rate"),
    Column("t_game", "float64", "seconds of game time played"),
    Column("invalid_rate", "float64", "share of steps whose response could not be parsed"),
    Column("screen_width", "int32", "the game's screen width (null: never showed a frame)"),
    Column("screen_height", "int32", "the game's screen height"),
    Column("samples", "int32", "rows of this episode in `frames`"),
    Column("video_error", "string", "why the video gave no frames although it should (null)"),
    Column("judge", "string", "the judge whose verdict the row carries (null: none)"),
    Column("judge_status", "string", "ok, or why the judge gave no level (null: not judged)"),
    Column("level", "int32", "progress level 0-4 by the paper's Table 9 rule (null: none)"),
    Column("level_name", "string", "the level's name"),
    Column("milestones", "string", "JSON list of the judge's timestamped milestones"),
    Column("judgement", "string", "the judgement file, whole, as JSON (null: none)"),
    Column("meta", "string", "the episode's meta.json, whole, as JSON"),
)

TABLES: dict[str, tuple[Column, ...]] = {
    "frames": FRAME_COLUMNS,
    "steps": STEP_COLUMNS,
    "episodes": EPISODE_COLUMNS,
}


def features(columns: Sequence[Column]) -> Any:
    """The ``datasets.Features`` of a table."""
    import datasets

    return datasets.Features(
        {
            c.name: datasets.Image() if c.dtype == "image" else datasets.Value(c.dtype)
            for c in columns
        }
    )


# -- what to export -------------------------------------------------------------------------------


@dataclass(frozen=True)
class EpisodeSource:
    """An episode directory to export; ``judgements`` is a judge's folder
    (``{judgements}/{corpus}/{preset}/{condition}/{game}.json``), ``genre`` the game's genre."""

    path: Path
    judgements: Path | None = None
    genre: str | None = None


def sources_from_scores(
    scores: pd.DataFrame,
    runs_dir: str | os.PathLike[str],
    judgements_dir: str | os.PathLike[str] | None,
) -> list[EpisodeSource]:
    """Every episode of a scores table (a campaign as its judge saw it), in the table's order;
    a row whose directory is gone is exported as left out, with its reason."""
    judgements = Path(judgements_dir) if judgements_dir is not None else None
    return [
        EpisodeSource(
            Path(runs_dir) / row.corpus / row.preset / row.condition / row.game,
            judgements,
            row.genre if isinstance(row.genre, str) and row.genre else None,
        )
        for row in scores.itertuples(index=False)
    ]


def find_episodes(root: str | os.PathLike[str]) -> list[Path]:
    """``root`` when it is an episode directory, else every episode directory below it, sorted.
    Folders whose name starts with a dot (``.replaced``, a recording's ``.partial`` staging
    folder) are not episodes of the campaign and are skipped."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"no such folder: {root}")
    if (root / META_NAME).is_file():
        return [root]
    found = []
    for meta in root.rglob(META_NAME):
        rel = meta.parent.relative_to(root)
        if not any(part.startswith(".") for part in rel.parts):
            found.append(meta.parent)
    return sorted(found)


# -- reading one episode ----------------------------------------------------------------------


@dataclass
class _Episode:
    source: EpisodeSource
    meta: EpisodeMeta
    trace: list[TraceStep]
    key: dict[str, str]
    times: np.ndarray = field(default_factory=lambda: np.zeros(0))
    frames: np.ndarray | None = None
    video_error: str | None = None
    judgement: dict[str, Any] | None = None
    judge_error: str | None = None

    @property
    def episode_id(self) -> str:
        return "/".join(self.key[k] for k in ("corpus", "preset", "condition", "game"))

    @property
    def level(self) -> int | None:
        j = self.judgement
        return int(j["level"]) if j and j.get("status") == OK else None


def _key(path: Path, meta: EpisodeMeta) -> dict[str, str]:
    """The episode's coordinates as the judges read them: ``meta.json``'s, else the path's
    ``.../{corpus}/{preset}/{condition}/{game}`` (an episode written before meta.json named
    them). :class:`EpisodeError` when neither does."""
    episode = Episode(path, meta, ())
    return {n: episode.coordinate(n) for n in ("corpus", "preset", "condition", "game")}


def _read(source: EpisodeSource) -> _Episode:
    """The episode of ``source``: meta, trace, judge samples, judgement. Raises
    :class:`EpisodeError` when meta or trace cannot be read (the episode is left out)."""
    meta = read_meta(source.path)
    trace = sorted(read_trace(source.path), key=lambda s: (float(s["t_game"]), s.get("step", 0)))
    ep = _Episode(source, meta, trace, _key(source.path, meta))
    video = source.path / VIDEO_NAME
    if video.is_file() and video.stat().st_size > 0:
        try:
            sampled = sample_video(video, SAMPLE_FPS, MAX_SIZE)
            ep.times, ep.frames = sampled.times, sampled.frames
        except VideoError as exc:
            ep.video_error = str(exc)
    elif int(meta.get("frames") or 0) > 0:
        ep.video_error = f"{video}: missing or empty, but meta.json records {meta['frames']} frames"
    if source.judgements is not None:
        k = ep.key
        file = source.judgements / k["corpus"] / k["preset"] / k["condition"] / f"{k['game']}.json"
        if file.is_file():
            try:
                ep.judgement = read_judgement(file)
            except (ValueError, OSError) as exc:  # not JSON, not a judgement, a wrong level
                ep.judge_error = f"{file}: {exc}"
    return ep


# -- rows -----------------------------------------------------------------------------------------


def _json(obj: Any) -> str | None:
    return None if obj is None else json.dumps(obj, ensure_ascii=False)


def _encode_image(frame: np.ndarray, image_format: str, quality: int) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    if image_format == "jpeg":
        Image.fromarray(frame).save(buf, format="JPEG", quality=quality)
    else:
        Image.fromarray(frame).save(buf, format="PNG")
    return buf.getvalue()


def _at_or_before(times: Sequence[float], t: float) -> int | None:
    """Index of the last of the sorted ``times`` at or before ``t`` (None: none is)."""
    i = bisect.bisect_right(times, t + 1e-6) - 1
    return i if i >= 0 else None


def _key_row(ep: _Episode) -> dict[str, Any]:
    return {"episode_id": ep.episode_id, **ep.key}


def _frame_rows(ep: _Episode, image_format: str, quality: int) -> Iterator[dict[str, Any]]:
    if ep.frames is None:
        return
    step_times = [float(s["t_game"]) for s in ep.trace]
    for i, (t, frame) in enumerate(zip(ep.times, ep.frames, strict=True)):
        k = _at_or_before(step_times, float(t))
        yield {
            **_key_row(ep),
            "level": ep.level,
            "sample": i,
            "t": float(t),
            "image": {"bytes": _encode_image(frame, image_format, quality), "path": None},
            "step": int(ep.trace[k].get("step", k)) if k is not None else None,
        }


def _step_rows(ep: _Episode) -> Iterator[dict[str, Any]]:
    sample_times = [float(t) for t in ep.times]
    for n, s in enumerate(ep.trace):
        size = s.get("image_size") or [None, None]
        yield {
            **_key_row(ep),
            "step": int(s.get("step", n)),
            "t_game": float(s["t_game"]),
            "frame": s.get("frame"),
            "sample": _at_or_before(sample_times, float(s["t_game"])),
            "response": s.get("response"),
            "actions": _json(s.get("actions") or []),
            "invalid": bool(s.get("invalid", False)),
            "latency_s": s.get("latency_s"),
            "image_width": size[0] if len(size) == 2 else None,
            "image_height": size[1] if len(size) == 2 else None,
            "probes": _json(s.get("probes")),
            "info": _json(s.get("info")),
        }


def _condition(meta: Mapping[str, Any], name: str) -> dict[str, Any]:
    """``history_k``, ``hz`` and ``variant`` as ``meta.json`` records them, else from the
    condition's name (episodes written before meta.json had them)."""
    out = {k: meta.get(k) for k in ("history_k", "hz", "variant")}
    if None in out.values():
        try:
            cond = Condition.parse(name)
        except (ConfigError, ValueError):
            return out
        parsed = {"history_k": cond.history_k, "hz": cond.hz, "variant": cond.variant}
        out = {k: parsed[k] if v is None else v for k, v in out.items()}
    return out


def _episode_row(ep: _Episode) -> dict[str, Any]:
    meta, j = ep.meta, ep.judgement
    model = meta.get("model") or {}
    screen = meta.get("screen") or [None, None]
    fps = meta.get("video_fps") or meta.get("fps")
    judged = j is not None and j.get("status") == OK
    return {
        **_key_row(ep),
        "genre": ep.source.genre,
        "runtime": meta.get("runtime"),
        "family": meta.get("family"),
        "model": model.get("hf_id") or model.get("served"),
        "model_revision": model.get("revision"),
        **_condition(meta, ep.key["condition"]),
        "seed": meta.get("seed"),
        "status": meta.get("status"),
        "error": meta.get("error"),
        "stop_reason": meta.get("stop_reason"),
        "steps": meta.get("steps", len(ep.trace)),
        "video_frames": meta.get("frames"),
        "video_fps": float(fps) if fps else None,
        "t_game": meta.get("t_game"),
        "invalid_rate": meta.get("invalid_rate"),
        "screen_width": screen[0] if len(screen) == 2 else None,
        "screen_height": screen[1] if len(screen) == 2 else None,
        "samples": len(ep.times),
        "video_error": ep.video_error,
        "judge": (j or {}).get("judge"),
        "judge_status": (j or {}).get("status") if ep.judge_error is None else "unreadable",
        "level": ep.level,
        "level_name": level_name(ep.level) if ep.level is not None else None,
        "milestones": _json(j.get("milestones", [])) if judged else None,
        "judgement": _json(j) if ep.judge_error is None else _json({"error": ep.judge_error}),
        "meta": _json(dict(meta)),
    }


# -- writing --------------------------------------------------------------------------------------


def _size(row: Mapping[str, Any]) -> int:
    """Rough bytes a row adds to a row group (its strings and image bytes)."""
    n = 0
    for value in row.values():
        if isinstance(value, str):
            n += len(value)
        elif isinstance(value, dict):
            n += len(value.get("bytes") or b"")
        else:
            n += 8
    return n


class _TableWriter:
    """One table's Parquet files ``{folder}/train-NNNNN.parquet``: rows buffered into row groups
    of about :data:`ROW_GROUP_BYTES`, a new file begun past ``shard_bytes``."""

    def __init__(self, folder: Path, columns: Sequence[Column], shard_bytes: int) -> None:
        self.folder = folder
        self.schema = features(columns).arrow_schema
        self.shard_bytes = shard_bytes
        self.rows: list[dict[str, Any]] = []
        self.buffered = 0
        self.count = 0
        self.files: list[Path] = []
        self._writer: Any = None

    def add(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            self.rows.append(row)
            self.buffered += _size(row)
            self.count += 1
            if self.buffered >= ROW_GROUP_BYTES or len(self.rows) >= ROW_GROUP_ROWS:
                self._flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self.rows:
            return
        if self._writer is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self.folder / f"{SPLIT}-{len(self.files):05d}.parquet"
            self.files.append(path)
            self._writer = pq.ParquetWriter(path, self.schema)
        self._writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
        self.rows, self.buffered = [], 0
        if self.files[-1].stat().st_size >= self.shard_bytes:
            self._writer.close()
            self._writer = None

    def close(self) -> None:
        """Write what is buffered. A table without rows gets no file: ``datasets`` cannot load
        a split without rows, so the card leaves such a table out."""
        self._flush()
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    @property
    def num_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.files)


@dataclass
class ExportSummary:
    """What an export wrote: rows and bytes per table, the episodes left out and why."""

    out_dir: Path
    rows: dict[str, int]
    num_bytes: dict[str, int]
    episodes: int
    left_out: list[tuple[str, str]]
    video_errors: int
    judged: int


@dataclass(frozen=True)
class ExportOptions:
    """How the frames are stored and the card is titled. ``provenance``: a sentence for the
    card's "How it was made" (what was exported, by which command or rule)."""

    image_format: str = DEFAULT_IMAGE_FORMAT
    jpeg_quality: int = DEFAULT_JPEG_QUALITY
    shard_bytes: int = DEFAULT_SHARD_BYTES
    title: str = "PlaySuite episodes"
    provenance: str = ""

    def __post_init__(self) -> None:
        if self.image_format not in IMAGE_FORMATS:
            raise ValueError(
                f"image format must be one of {list(IMAGE_FORMATS)}, got {self.image_format!r}"
            )
        if not 1 <= self.jpeg_quality <= 95:
            raise ValueError(f"JPEG quality must be 1..95, got {self.jpeg_quality}")
        if self.shard_bytes <= 0:
            raise ValueError(f"shard size must be positive, got {self.shard_bytes}")


def export_dataset(
    sources: Iterable[EpisodeSource],
    out_dir: str | os.PathLike[str],
    options: ExportOptions | None = None,
) -> ExportSummary:
    """Write the episodes of ``sources`` as a dataset folder ``out_dir`` (replaced whole, once
    complete): ``frames/``, ``steps/``, ``episodes/`` Parquet files and the card ``README.md``.

    Two sources naming the same episode (``corpus/preset/condition/game``) are an error: the
    tables would no longer join.
    """
    options = options or ExportOptions()
    out_dir = Path(out_dir)
    left_out: list[tuple[str, str]] = []
    seen: dict[str, Path] = {}
    video_errors = judged = 0
    with atomic_dir(out_dir) as tmp:
        writers = {
            name: _TableWriter(tmp / name, TABLES[name], options.shard_bytes)
            for name in TABLE_NAMES
        }
        for source in sources:
            try:
                ep = _read(source)
            except EpisodeError as exc:
                left_out.append((str(source.path), str(exc)))
                continue
            if ep.episode_id in seen:
                raise ValueError(
                    f"two episodes are both {ep.episode_id}: {seen[ep.episode_id]} and "
                    f"{source.path}"
                )
            seen[ep.episode_id] = source.path
            video_errors += ep.video_error is not None
            judged += ep.level is not None
            writers["frames"].add(_frame_rows(ep, options.image_format, options.jpeg_quality))
            writers["steps"].add(_step_rows(ep))
            writers["episodes"].add([_episode_row(ep)])
        if not seen:
            reasons = "; ".join(f"{path}: {why}" for path, why in left_out[:3])
            raise ValueError(
                f"nothing to export: {len(left_out)} episodes given, none readable"
                + (f" ({reasons}{'; ...' if len(left_out) > 3 else ''})" if reasons else "")
            )
        for writer in writers.values():
            writer.close()
        summary = ExportSummary(
            out_dir=out_dir,
            rows={name: w.count for name, w in writers.items()},
            num_bytes={name: w.num_bytes for name, w in writers.items()},
            episodes=len(seen),
            left_out=left_out,
            video_errors=video_errors,
            judged=judged,
        )
        write_text_atomic(tmp / CARD_NAME, dataset_card(summary, options))
    return summary


# -- the card ---------------------------------------------------------------------------------


def _size_category(n: int) -> str:
    """The Hub's ``size_categories`` tag for ``n`` rows."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")]
    bounds += [(1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M")]
    return next((tag for limit, tag in bounds if n < limit), "n>100M")


def written_tables(summary: ExportSummary) -> list[str]:
    """The tables that have rows, in card order (a table without rows has no file)."""
    return [name for name in TABLE_NAMES if summary.rows[name]]


def card_header(summary: ExportSummary) -> dict[str, Any]:
    """The card's YAML header: licence, tags, one config per table that has rows (the first,
    normally ``frames``, is the default), each with its files, features and row count."""
    configs, infos = [], []
    for name in written_tables(summary):
        config: dict[str, Any] = {"config_name": name}
        if not configs:
            config["default"] = True
        config["data_files"] = [{"split": SPLIT, "path": f"{name}/*.parquet"}]
        configs.append(config)
        infos.append(
            {
                "config_name": name,
                "features": [{"name": c.name, "dtype": c.dtype} for c in TABLES[name]],
                "splits": [
                    {
                        "name": SPLIT,
                        "num_bytes": summary.num_bytes[name],
                        "num_examples": summary.rows[name],
                    }
                ],
            }
        )
    return {
        "license": "other",
        "license_name": "third-party-games",
        "pretty_name": None,  # filled by dataset_card
        "tags": ["games", "gameplay", "video", "agents", "vision-language-models"],
        "size_categories": [_size_category(summary.rows["frames"])],
        "configs": configs,
        "dataset_info": infos,
    }


def _columns_md(columns: Sequence[Column]) -> str:
    lines = ["| column | type | what it holds |", "|---|---|---|"]
    lines += [f"| `{c.name}` | {c.dtype} | {c.doc} |" for c in columns]
    return "\n".join(lines)


def dataset_card(summary: ExportSummary, options: ExportOptions) -> str:
    """The dataset card (``README.md``): YAML header, then what the dataset holds, how it was
    made, its licence, the columns of each table and how to load it."""
    header = card_header(summary)
    header["pretty_name"] = options.title
    rows = summary.rows
    encoding = (
        f"JPEG (quality {options.jpeg_quality})"
        if options.image_format == "jpeg"
        else "PNG (lossless)"
    )
    left_out = "\n".join(f"- `{path}`: {why}" for path, why in summary.left_out)
    parts = [
        "---",
        yaml.safe_dump(header, sort_keys=False, allow_unicode=True, width=100).rstrip(),
        "---",
        "",
        f"# {options.title}",
        "",
        f"{summary.episodes} episodes of real games played by models or baselines, recorded "
        "by the PlaySuite harness: the frames the progress judge looks at "
        f"({rows['frames']} rows), every agent step with the model's raw response and the "
        f"actions parsed from it ({rows['steps']} rows), and one row per episode with what was "
        f"played, how it ended and the judge's progress level ({summary.judged} of "
        f"{summary.episodes} episodes have one).",
        "",
        "## How it was made",
        "",
        f"Written by `playsuite.analysis.dataset` (playsuite {__version__}). "
        + (options.provenance + " " if options.provenance else "")
        + "Each episode directory holds the game's video (H.264, game time only: inference "
        "pauses are not recorded), `trace.jsonl` (one line per agent step) and `meta.json`. The "
        "frames are sampled from the video exactly as the judges sample them "
        f"(`playsuite.judge.video.sample_video`): {SAMPLE_FPS:g} frame per second of game "
        f"time, the first frame at or after each sample time, scaled inside the decoder to at "
        f"most {MAX_SIZE[0]}x{MAX_SIZE[1]} with the game's aspect ratio, stored as {encoding}. "
        "Levels are the paper's Table 9 rule applied to the judge's reported milestones, never "
        "the judge's own opinion of a level.",
        "",
        f"Episodes left out (their `meta.json` or trace could not be read): "
        f"{len(summary.left_out)}." + (f"\n\n{left_out}" if left_out else ""),
        f"Episodes whose video gave no frames although it should have (`video_error`): "
        f"{summary.video_errors}.",
        "",
        "## Licence",
        "",
        "`license: other`. The frames show third-party games, each under its own licence (see "
        "the game's source: Debian package, PyPI project, itch.io page or PyWeek entry); the "
        "responses were written by models whose terms may restrict their use. Check both before "
        "redistributing this dataset. The PlaySuite code that made it is under the MIT licence.",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        'frames = load_dataset("parquet", data_files={"train": "DIR/frames/*.parquet"},',
        '                      split="train")',
        'frames[0]["image"]          # a PIL image',
        'steps = load_dataset("DIR", "steps", split="train")   # configs from this card',
        'import json; json.loads(steps[0]["actions"])',
        "```",
        "",
        "The tables join on `episode_id`; `frames.step` and `steps.sample` link a frame and a "
        "step of one episode.",
    ]
    for name, intro in (
        ("frames", "one row per judge frame"),
        ("steps", "one row per agent step"),
        ("episodes", "one row per episode"),
    ):
        note = "" if rows[name] else " (no rows: not written, and no config of the card)"
        parts += ["", f"## `{name}`: {intro}{note}", "", _columns_md(TABLES[name])]
    return "\n".join(parts) + "\n"


def load_scores_sources(
    scores: str | os.PathLike[str],
    runs_dir: str | os.PathLike[str],
    judgements_dir: str | os.PathLike[str] | None,
) -> list[EpisodeSource]:
    """:func:`sources_from_scores` of the scores table file ``scores`` (checked on read)."""
    return sources_from_scores(read_scores_file(scores), runs_dir, judgements_dir)


def export_log(summary: ExportSummary) -> str:
    """Lines for a job log: what was written and each episode left out."""
    lines = [
        f"{summary.episodes} episodes -> {summary.out_dir}: "
        + ", ".join(f"{name} {summary.rows[name]} rows" for name in TABLE_NAMES)
        + f"; {summary.judged} with a level"
    ]
    lines += [f"left out {path}: {why}" for path, why in summary.left_out]
    if summary.video_errors:
        lines.append(f"{summary.video_errors} episodes whose video gave no frames (video_error)")
    return "\n".join(lines)
