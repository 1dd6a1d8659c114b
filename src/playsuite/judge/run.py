"""Running a named judge on episodes: one episode (``playsuite judge``) or a shard of them.

A judge name comes from the registry (``config/models.yaml``): ``local`` judges (``frame``,
``state``) are functions of the episode; ``vllm`` judges need a model server. A shard judged by
a Video-LLM starts one server for the whole shard (like a play shard) unless given the socket of
one already running, and writes each judgement as soon as it is done, so a killed shard keeps
the finished ones.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playsuite.config import ConfigError, schema_default, with_defaults
from playsuite.corpus import GameEntry, find_game, load_corpus
from playsuite.files import read_json
from playsuite.judge.context import game_context, load_prompt, read_readme
from playsuite.judge.episode import Episode, EpisodeError, load_episode
from playsuite.judge.frame_judge import judge_episode_frames
from playsuite.judge.result import episode_unreadable, write_judgement
from playsuite.judge.state_judge import judge_state
from playsuite.records.manifest import (
    judged_episode,
    write_judge_manifest,
)
from playsuite.registry import JudgePreset, load_registry


def workflow_settings(config: dict[str, Any]) -> dict[str, Any]:
    """``config["judge"]`` with the schema's defaults (config/schemas/config.schema.json)."""
    return with_defaults(config.get("judge"), "config", "judge")


#: Judges that need no model: name -> function of an episode.
LOCAL_JUDGES: dict[str, Callable[[Episode, str], dict[str, Any]]] = {
    "frame": judge_episode_frames,
    "state": judge_state,
}


@dataclass
class JudgeOptions:
    """Where a Video-LLM judge finds its server, game contexts and prompt.

    ``catalog`` is a corpus table, or a mapping corpus name -> table for shards spanning corpora;
    ``game_dirs`` maps a game id to its acquired directory (for README contexts).
    """

    catalog: str | os.PathLike[str] | dict[str, str] | None = None
    game_dir: str | os.PathLike[str] | None = None
    game_dirs: dict[str, str] = field(default_factory=dict)
    uds: str | None = None
    attempts: int = 3
    prompt: str | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    vllm: str = field(default_factory=lambda: schema_default("config", "engine", "vllm"))
    model: str | None = None  # a local model directory replacing the judge's hf_id
    server_argv: list[str] | None = None
    server_log: str | None = None
    ready_timeout_s: float = field(
        default_factory=lambda: float(schema_default("config", "judge", "ready_timeout_s"))
    )
    prefetch: int | None = None  # episodes prepared ahead of the requests (None: max_num_seqs)


def shard_options(
    settings: dict[str, Any],
    catalogs: dict[str, str],
    episodes: Sequence[str],
    games_dir: str,
    *,
    vllm: str,
    server_argv: Sequence[str] | None,
    server_log: str,
) -> JudgeOptions:
    """The options of a workflow judge shard job (rules judge_shard and validation_judge):
    ``settings`` is :func:`workflow_settings`; README contexts come from the acquired games."""
    return JudgeOptions(
        catalog=dict(catalogs),
        game_dirs={Path(e).name: str(Path(games_dir) / Path(e).name / "files") for e in episodes},
        attempts=int(settings["attempts"]),
        extra_body=dict(settings["extra_body"]),
        vllm=vllm,
        server_argv=list(server_argv or []) or None,
        server_log=server_log,
        ready_timeout_s=float(settings["ready_timeout_s"]),
        prefetch=settings.get("prefetch"),
    )


def _preset(name: str) -> JudgePreset:
    preset = load_registry().judge(name)
    if preset.kind == "local" and name not in LOCAL_JUDGES:
        raise ConfigError(f"no local judge named {name!r}; local judges: {', '.join(LOCAL_JUDGES)}")
    return preset


def _game(episode: Episode, options: JudgeOptions) -> GameEntry:
    catalog = options.catalog
    if isinstance(catalog, dict):
        corpus = episode.coordinate("corpus")
        if corpus not in catalog:
            raise ConfigError(f"no corpus table for corpus {corpus!r}")
        catalog = catalog[corpus]
    if catalog is None:
        raise ConfigError("a Video-LLM judge needs the game's corpus table (--catalog)")
    return find_game(load_corpus(catalog), episode.coordinate("game"))


def episode_context(episode: Episode, options: JudgeOptions) -> str:
    """The game context for an episode's game (store page or README, by corpus)."""
    game = _game(episode, options)
    game_dir = options.game_dirs.get(game.id, options.game_dir)
    return game_context(game, read_readme(game, game_dir))


def _vlm(name: str, preset: JudgePreset, options: JudgeOptions, uds: str, concurrency: int):
    from playsuite.inference.client import InferenceClient
    from playsuite.judge.vlm_judge import VLMJudge

    client = InferenceClient.for_preset(preset, uds, max_concurrency=concurrency)
    judge = VLMJudge(
        name,
        client,
        load_prompt(options.prompt),
        sampling=dict(preset.sampling),
        attempts=options.attempts,
        extra_body=dict(options.extra_body),
    )
    return client, judge


def judge_one(
    name: str, episode_dir: str | os.PathLike[str], options: JudgeOptions | None = None
) -> dict[str, Any]:
    """Judge one episode directory with the named judge (a running server for VLM judges)."""
    options = options or JudgeOptions()
    preset = _preset(name)
    episode = load_episode(episode_dir)
    if preset.kind == "local":
        return LOCAL_JUDGES[name](episode, name)
    if not options.uds:
        raise ConfigError(f"judge {name!r} needs its model server's socket (--uds)")
    from playsuite.judge.vlm_judge import JudgeItem

    client, judge = _vlm(name, preset, options, options.uds, 1)
    with client:
        return judge.judge(JudgeItem(str(episode_dir), episode, episode_context(episode, options)))


def _job_server(preset: JudgePreset, options: JudgeOptions, uds: Path) -> Any:
    """The judge's model server for one shard (not started). No watcher thread: the client
    restarts a crashed server when a request finds it gone (``client.recover``)."""
    from playsuite.inference.job_server import JobServer, ServerSettings

    settings = ServerSettings.from_schema(
        argv=list(options.server_argv) if options.server_argv else None,
        vllm=options.vllm,
        model=options.model,
        ready_timeout_s=options.ready_timeout_s,
        monitor_interval_s=None,
    )
    return JobServer(preset, uds, settings, options.server_log)


def judge_shard(
    name: str,
    jobs: Sequence[tuple[str | os.PathLike[str], str | os.PathLike[str]]],
    options: JudgeOptions | None = None,
) -> dict[str, int]:
    """Judge ``(episode_dir, judgement_path)`` pairs; returns a count per judgement status.

    Video-LLM judges: starts the preset's server on a private socket (``options.uds`` overrides
    with a running one), sends ``max_num_seqs`` requests at a time, prefetching videos.
    """
    options = options or JudgeOptions()
    preset = _preset(name)
    counts: dict[str, int] = {}

    def record(out_path: str | os.PathLike[str], out: dict[str, Any]) -> None:
        write_judgement(out_path, out)
        counts[out["status"]] = counts.get(out["status"], 0) + 1

    if preset.kind == "local":
        for episode_dir, out_path in jobs:
            try:
                episode = load_episode(episode_dir)
            except EpisodeError as exc:
                record(out_path, episode_unreadable(name, exc))
                continue
            record(out_path, LOCAL_JUDGES[name](episode, name))
        return counts

    from playsuite.judge.vlm_judge import JudgeItem

    concurrency = int(preset.serve.get("max_num_seqs", 8))
    items = []
    outputs = {}
    for episode_dir, out_path in jobs:
        try:
            episode = load_episode(episode_dir)
        except EpisodeError as exc:
            record(out_path, episode_unreadable(name, exc))
            continue
        key = str(episode_dir)
        items.append(JudgeItem(key, episode, episode_context(episode, options)))
        outputs[key] = out_path
    server = None
    uds = options.uds
    tmp = None
    if uds is None:
        tmp = tempfile.mkdtemp(prefix="psj-", dir="/tmp")  # socket paths must stay short
        server = _job_server(preset, options, Path(tmp) / "judge.sock")
        uds = server.uds
    try:
        if server is not None:
            server.start()
        client, judge = _vlm(name, preset, options, uds, concurrency)
        if server is not None:
            client.recover = server.ensure_healthy
        with client:
            for key, out in judge.judge_many(
                items, concurrency=concurrency, prefetch=options.prefetch
            ):
                record(outputs[key], out)
    finally:
        if server is not None:
            server.stop()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return counts


def run_shard_manifest(
    name: str,
    episode_dirs: Sequence[str | os.PathLike[str]],
    judgement_dir: str | os.PathLike[str],
    manifest: str | os.PathLike[str],
    options: JudgeOptions | None = None,
    stems: Sequence[str] | None = None,
) -> dict[str, int]:
    """Judge a shard's episodes into ``judgement_dir/{game}.json``, then write its manifest.

    The manifest (playsuite.records.manifest.JudgedEpisode) is the shard job's one
    declared output and is written last and atomically: its presence means the shard is done.
    ``stems`` names the judgement files instead of the games, for shards whose episodes come from
    several runs and may share a game (the validation set names them by blinded id).
    """
    names = list(stems) if stems is not None else [Path(d).name for d in episode_dirs]
    if len(names) != len(episode_dirs) or len(set(names)) != len(names):
        raise ValueError("judgement names must be unique, one per episode")
    jobs = [
        (Path(d), Path(judgement_dir) / f"{stem}.json")
        for d, stem in zip(episode_dirs, names, strict=True)
    ]
    counts = judge_shard(name, jobs, options)
    rows = [
        judged_episode(episode_dir, out, read_json(out))
        for episode_dir, out in sorted(jobs, key=lambda j: j[0].name)
    ]
    write_judge_manifest(manifest, rows)
    return counts
