"""The episode directory (DESIGN.md "Episode directory"): its file names, ``meta.json`` and trace.

The harness records an episode into ``results/runs/{corpus}/{preset}/{condition}/{game}/``:

- ``meta.json`` (:class:`EpisodeMeta`): what was played (game, preset, condition, seed, limits,
  versions) and how it ended (status, steps, frames, timings). Written last: its presence means
  the episode finished, with whatever status.
- ``trace.jsonl`` (:class:`TraceStep`): one JSON object per agent step.
- ``episode.mp4``: H.264 video of game time only (absent when no frame was ever produced).
- ``game.log`` / ``browser.log`` (:data:`GAME_LOG_NAMES`): the game's own output as its runtime
  logged it (pygame and native games: stdout and stderr; browser games: the page's console,
  errors and blocked requests), kept when the episode ends. One larger than
  :data:`GAME_LOG_MAX_BYTES` keeps its head and its tail, with a line in between saying so.

The harness writes these files and the judges, the node runner's resume and the inspection pages
read them back, all through this module, so a damaged or foreign file is named the same way
everywhere (:class:`CorruptEpisode`) and a missing one is told apart (:class:`EpisodeError`).
``meta.json`` carries ``format`` (:data:`META_FORMAT`); one written before that key existed must
still hold ``status``, and reads as format 1. Format 2 added ``model`` (:class:`ModelRecord`):
format-1 files, which lack it, still read. Format 3 added ``usage`` (:class:`UsageRecord`, the
episode's tokens and requests) and the model record's optional ``endpoint``; older files lack
them and still read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from playsuite.files import read_json, write_json_atomic
from playsuite.records.base import FORMAT_FIELD, RecordError, check_format, check_types

META_NAME = "meta.json"
TRACE_NAME = "trace.jsonl"
VIDEO_NAME = "episode.mp4"
GAME_LOG_NAME = "game.log"
BROWSER_LOG_NAME = "browser.log"
#: The logs a runtime writes into its run's working directory, kept under the same names.
GAME_LOG_NAMES = (GAME_LOG_NAME, BROWSER_LOG_NAME)
#: Largest game log kept whole; a longer one keeps half of this from each end.
GAME_LOG_MAX_BYTES = 2 * 1024 * 1024
#: Version of ``meta.json`` this code writes (and the newest it reads).
META_FORMAT = 3


class EpisodeError(ValueError):
    """An episode directory that is missing, or lacks its ``meta.json``."""


class CorruptEpisode(EpisodeError, RecordError):
    """A file of the episode exists but does not hold what it should. Distinct from a missing
    episode: something was recorded and then damaged (or written by something else), and it must
    be seen, not skipped. ``file`` is that file."""


class Limits(TypedDict):
    """The caps an episode was played with (``None``: no cap)."""

    max_steps: int | None
    max_game_s: float | None
    max_frames: int | None


class ModelRecord(TypedDict):
    """What answered the episode's prompts (``meta.json``'s ``model``; ``null`` for a baseline,
    which has no model).

    ``hf_id`` and ``revision`` are the preset's (config/models.yaml; ``revision`` is ``None``
    where none is pinned or where a local copy replaced the hub's); ``served`` is what the server
    was asked to load (a local copy's path when one replaced ``hf_id``). ``engine`` is ``vllm``
    for ``vllm serve`` built from the preset, ``server_argv`` for a configured command line;
    ``engine_version`` is what the running server reported (``GET /version``). ``served``,
    ``engine`` and ``engine_version`` are ``None`` when no server of the job told them (an
    episode played on a client handed in by a caller).

    A hosted preset (kind ``openai``) has no weights of ours: ``hf_id`` and ``revision`` are
    ``None``, ``served`` is the endpoint's model name, ``engine`` is ``openai`` and ``endpoint``
    (written for such presets alone, from format 3) its API root. Never the key.
    """

    hf_id: str | None
    revision: str | None
    served: str | None
    engine: str | None
    engine_version: str | None
    endpoint: NotRequired[str]


class UsageRecord(TypedDict):
    """``meta.json``'s ``usage`` (format 3): what the episode's answers cost, summed over its
    steps from each answer's ``usage`` as the server reported it (the trace's ``info.usage``);
    ``null`` for a baseline. ``requests``: answers received; ``retries``: attempts that failed
    first (rate limits, server errors; the trace's ``info.retries`` says why)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    requests: int
    retries: int


class EpisodeMeta(TypedDict, total=False):
    """``meta.json``: every key the harness writes, in the order it writes them.

    ``monitor_dir``, ``screen``, ``final_probes`` and ``attempts`` are written only when they
    apply (a monitored game; a game that showed a frame; probes read at a clean end; an episode
    played with ``reset_on_fail``); ``protocol`` by every episode since it existed. So are
    ``agent`` (``human``), ``player`` (a pseudonymous player id) and ``play_mode`` (``paced`` or
    ``live``), written for an episode a person played (playsuite.human): a model's or a
    baseline's episode has none of them. A file may hold
    keys beyond these (older or hand-made episodes); they are kept as they are.
    """

    format: int
    corpus: str
    game: str
    runtime: str
    preset: str
    family: str
    parser: str
    template: str
    condition: str
    history_k: int
    hz: float
    variant: str
    condition_settings: dict[str, Any]
    sampling: dict[str, Any]
    step_seconds: float
    seed: int
    versions: dict[str, str]
    model: ModelRecord | None
    usage: UsageRecord | None
    host: str
    monitored: bool
    video_fps: float
    limits: Limits
    wall_timeout_s: float | None
    monitor_dir: str
    agent: str
    player: str
    play_mode: str
    screen: list[int]
    final_probes: dict[str, Any]
    status: str
    error: str
    stop_reason: str
    steps: int
    frames: int
    t_game: float
    invalid_steps: int
    invalid_rate: float
    launch_s: float
    model_s: float
    wall_s: float
    harness_cpu_s: float
    protocol: dict[str, Any]
    attempts: list[Attempt]


class Attempt(TypedDict):
    """One launch of the game in an episode played with ``reset_on_fail`` (``meta.json``'s
    ``attempts``, in order): the step, video frame and episode game time it started at, how long
    its launch took, and how it ended (``game_over``, or ``""``: the episode stopped in it)."""

    step: int
    frame: int
    t_game: float
    launch_s: float
    end: str


_NUM = (int, float)
_NONE = type(None)
#: JSON types of each key. ``error`` may be null in episodes written before format 1.
META_TYPES: dict[str, tuple[type, ...]] = {
    "format": (int,),
    "corpus": (str,),
    "game": (str,),
    "runtime": (str,),
    "preset": (str,),
    "family": (str,),
    "parser": (str,),
    "template": (str,),
    "condition": (str,),
    "history_k": (int,),
    "hz": _NUM,
    "variant": (str,),
    "condition_settings": (dict,),
    "sampling": (dict,),
    "step_seconds": _NUM,
    "seed": (int,),
    "versions": (dict,),
    "model": (dict, _NONE),
    "usage": (dict, _NONE),
    "host": (str,),
    "monitored": (bool,),
    "video_fps": _NUM,
    "limits": (dict,),
    "wall_timeout_s": (*_NUM, _NONE),
    "monitor_dir": (str,),
    "agent": (str,),
    "player": (str,),
    "play_mode": (str,),
    "screen": (list,),
    "final_probes": (dict,),
    "native_clock": (dict,),
    "status": (str,),
    "error": (str, _NONE),
    "stop_reason": (str,),
    "steps": (int,),
    "frames": (int,),
    "t_game": _NUM,
    "invalid_steps": (int,),
    "invalid_rate": _NUM,
    "launch_s": _NUM,
    "model_s": _NUM,
    "wall_s": _NUM,
    "harness_cpu_s": _NUM,
    "protocol": (dict,),
    "attempts": (list,),
}
LIMITS_TYPES: dict[str, tuple[type, ...]] = {
    "max_steps": (int, _NONE),
    "max_game_s": (*_NUM, _NONE),
    "max_frames": (int, _NONE),
}
MODEL_TYPES: dict[str, tuple[type, ...]] = {
    "hf_id": (str, _NONE),
    "revision": (str, _NONE),
    "served": (str, _NONE),
    "engine": (str, _NONE),
    "engine_version": (str, _NONE),
}
#: Keys a model record may hold beyond :data:`MODEL_TYPES`.
MODEL_OPTIONAL_TYPES: dict[str, tuple[type, ...]] = {"endpoint": (str,)}
USAGE_TYPES: dict[str, tuple[type, ...]] = {
    "prompt_tokens": (int,),
    "completion_tokens": (int,),
    "total_tokens": (int,),
    "requests": (int,),
    "retries": (int,),
}
#: Keys written only when they apply; every other key of :data:`META_TYPES` is in each
#: ``meta.json`` of the current format.
#: ``protocol`` (playsuite.harness.protocol: action budget, reset on fail, real time) is absent
#: from episodes played before it existed, which were all played with the paused protocol;
#: ``attempts`` is written for episodes played with ``reset_on_fail``.
OPTIONAL_META = frozenset(
    {
        "monitor_dir",
        "agent",
        "player",
        "play_mode",
        "screen",
        "final_probes",
        "native_clock",
        "protocol",
        "attempts",
    }
)
#: Keys each format added: a file of an older format may lack them.
#: ``condition_settings``: the condition's settings by dotted path (``history_k``, ``hz``,
#: ``variant`` and any ``+{path}={value}`` of its name); ``sampling``: what the preset was played
#: with once the condition's overrides were applied.
ADDED_IN_FORMAT: dict[str, int] = {
    "model": 2,
    "condition_settings": 2,
    "sampling": 2,
    "usage": 3,
}
#: What an episode written before ``format`` must hold: how it ended.
LEGACY_REQUIRED = ("status",)


def check_meta(obj: Any, file: str | os.PathLike[str]) -> EpisodeMeta:
    """``obj`` as :class:`EpisodeMeta` when it follows the contract, else :class:`CorruptEpisode`
    naming ``file``: not an object, a newer format, a key missing or of the wrong type."""
    if not isinstance(obj, dict):
        raise CorruptEpisode(file, "must hold a JSON object")
    try:
        version = check_format(file, obj.get(FORMAT_FIELD), META_FORMAT, "meta.json")
        if FORMAT_FIELD in obj:
            required = [
                k
                for k in META_TYPES
                if k not in OPTIONAL_META and ADDED_IN_FORMAT.get(k, 1) <= version
            ]
        else:
            required = list(LEGACY_REQUIRED)
        missing = [k for k in required if k not in obj]
        if missing:
            raise RecordError(file, f"missing keys {missing}")
        check_types(file, obj, META_TYPES)
        if isinstance(obj.get("limits"), dict):
            check_types(file, obj["limits"], LIMITS_TYPES, where="limits.")
        if isinstance(obj.get("model"), dict):
            missing = [k for k in MODEL_TYPES if k not in obj["model"]]
            if missing:
                raise RecordError(file, f"model: missing keys {missing}")
            check_types(file, obj["model"], MODEL_TYPES, where="model.")
            check_types(file, obj["model"], MODEL_OPTIONAL_TYPES, where="model.")
        if isinstance(obj.get("usage"), dict):
            missing = [k for k in USAGE_TYPES if k not in obj["usage"]]
            if missing:
                raise RecordError(file, f"usage: missing keys {missing}")
            check_types(file, obj["usage"], USAGE_TYPES, where="usage.")
    except RecordError as exc:
        raise _corrupt(exc) from None
    return obj  # type: ignore[return-value]  # checked above


def _corrupt(exc: RecordError) -> CorruptEpisode:
    """The same complaint as a damaged file of the episode."""
    if isinstance(exc, CorruptEpisode):
        return exc
    return CorruptEpisode(exc.file, str(exc).removeprefix(f"{exc.file}: "))


def read_meta(path: str | os.PathLike[str]) -> EpisodeMeta:
    """``meta.json`` of the episode directory ``path``, checked (:func:`check_meta`):
    :class:`EpisodeError` when it is absent, :class:`CorruptEpisode` when it cannot be read or
    does not follow the contract."""
    file = Path(path) / META_NAME
    try:
        obj = read_json(file)
    except FileNotFoundError:
        raise EpisodeError(f"{path}: no {META_NAME}") from None
    except ValueError as exc:  # not JSON, or not UTF-8 text
        raise CorruptEpisode(file, f"not JSON: {exc}") from None
    except OSError as exc:
        raise CorruptEpisode(file, f"cannot be read: {exc}") from None
    return check_meta(obj, file)


def write_meta(path: str | os.PathLike[str], meta: Mapping[str, Any]) -> None:
    """Write ``meta.json`` into the directory ``path``, atomically, after checking it: a writer
    that forgets a key or gives one the wrong type fails here, not in a reader months later."""
    file = Path(path) / META_NAME
    write_json_atomic(file, check_meta(dict(meta), file))


def episode_finished(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` holds a finished episode (``meta.json`` is written last)."""
    return (Path(path) / META_NAME).is_file()


def video_fps(meta: Mapping[str, Any]) -> float | None:
    """Frames per second of the episode's video as ``meta.json`` records it (``fps`` in
    hand-made episodes that predate ``video_fps``), or None."""
    value = meta.get("video_fps") or meta.get("fps")
    return float(value) if isinstance(value, int | float) and value else None


# -- the trace ------------------------------------------------------------------------------


class TraceStep(TypedDict, total=False):
    """One line of ``trace.jsonl``: an agent step.

    ``t_game``: game time (s) when the step's actions were applied; ``frame``: the video frame
    index then; ``actions``: the canonical actions parsed from ``response``; ``probes``: values
    read from the game right after the step's observation (``null`` where an expression
    failed); ``info``: what the policy reported beside its answer (a served model's: ``usage``
    as the server reported it, ``attempts``, and ``retries``, why each failed attempt failed,
    when there were any; ``meta.json``'s ``usage`` sums them).

    Written only under the protocol options that make them (playsuite.harness.protocol):
    ``attempt``, the game's launch the step belongs to (``reset_on_fail``; 0 first) and, on the
    step after which the game was over, ``attempt_end``: the probes then and the episode's game
    time (the failed attempt's last state, which no later step shows); ``think_s`` (wall seconds
    the agent took to answer) and ``think_game_s`` (game seconds played meanwhile, before the
    actions applied: ``realtime``; ``t_game`` and ``frame`` are then when they applied).
    """

    step: int
    t_game: float
    frame: int
    response: str
    actions: list[dict[str, Any]]
    invalid: bool
    latency_s: float
    image_size: list[int]
    probes: dict[str, Any]
    info: dict[str, Any]
    attempt: int
    attempt_end: dict[str, Any]
    think_s: float
    think_game_s: float


TRACE_TYPES: dict[str, tuple[type, ...]] = {
    "step": (int,),
    "t_game": _NUM,
    "frame": (int,),
    "response": (str,),
    "actions": (list,),
    "invalid": (bool,),
    "latency_s": _NUM,
    "image_size": (list,),
    "probes": (dict, _NONE),
    "info": (dict,),
    "attempt": (int,),
    "attempt_end": (dict,),
    "think_s": _NUM,
    "think_game_s": _NUM,
}
#: What each trace line must hold: when it happened.
TRACE_REQUIRED = ("t_game",)


def trace_line(step: Mapping[str, Any]) -> str:
    """One ``trace.jsonl`` line (with its newline) for ``step``."""
    return json.dumps(step, ensure_ascii=False) + "\n"


def check_trace_step(obj: Any, file: str | os.PathLike[str], where: str) -> TraceStep:
    """``obj`` (line ``where`` of ``file``) as :class:`TraceStep`, else :class:`CorruptEpisode`."""
    if not isinstance(obj, dict):
        raise CorruptEpisode(file, f"{where}: a trace line must be a JSON object")
    missing = [k for k in TRACE_REQUIRED if k not in obj]
    if missing:
        raise CorruptEpisode(file, f"{where}: missing field {missing[0]!r}")
    try:
        check_types(file, obj, TRACE_TYPES, where=f"{where}: ")
    except RecordError as exc:
        raise _corrupt(exc) from None
    actions = obj.get("actions") or []
    if not all(isinstance(a, dict) for a in actions):
        raise CorruptEpisode(file, f"{where}: 'actions' must be a list of objects")
    return obj  # type: ignore[return-value]  # checked above


def read_trace(path: str | os.PathLike[str]) -> list[TraceStep]:
    """The steps of the episode directory ``path`` in file order, each checked; an absent trace
    is an empty one (a game that failed before its first step)."""
    file = Path(path) / TRACE_NAME
    if not file.exists():
        return []
    try:
        with open(file, encoding="utf-8") as fh:
            lines = fh.readlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CorruptEpisode(file, f"cannot be read: {exc}") from None
    steps = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorruptEpisode(file, f"line {n}: not JSON: {exc}") from None
        steps.append(check_trace_step(obj, file, f"line {n}"))
    return steps
