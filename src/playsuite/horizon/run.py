"""Jobs around a served model: annotate episodes, answer a question set.

Both start the model's server for the job on a private socket (``vllm serve`` from the registry
entry, or ``horizon.server_argv``), exactly as play and judge shards do (:class:`JobServer`),
unless handed the socket of one already running; a crashed server is restarted when a request
finds it gone. A hosted preset (kind ``openai``) is asked at its endpoint instead, with its own
retry policy and request limits, as its play jobs do. The annotator may be any preset or judge of
the registry; the media a request carries follow that entry's ``limit_mm_per_prompt``
(:func:`~playsuite.horizon.media.media_plan`); a hosted preset is shown images.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playsuite.config import ConfigError, schema_default
from playsuite.corpus import find_game, load_corpus
from playsuite.horizon.annotate import Annotator, GameText
from playsuite.horizon.answer import answer_questions, file_sha256
from playsuite.horizon.media import MediaPlan, media_plan
from playsuite.horizon.prompts import load_prompts
from playsuite.inference.client import InferenceClient
from playsuite.judge.context import game_context, read_readme
from playsuite.records.episode import EpisodeError, read_meta
from playsuite.records.horizon import (
    index_row,
    read_questions,
    write_annotation,
    write_annotation_index,
    write_answers,
)
from playsuite.registry import Registry, load_registry


def registry_entry(name: str, registry: Registry | None = None) -> Any:
    """A preset, else a judge, of the model registry (``registry``, else config/models.yaml)
    named ``name``; it must be a model: served by vLLM or hosted at an endpoint."""
    registry = registry or load_registry()
    entry = registry.presets.get(name) or registry.judges.get(name)
    if entry is None:
        raise ConfigError(f"{name!r} is neither a preset nor a judge of the model registry")
    if not entry.uses_model:
        raise ConfigError(f"{name!r} is not a model (kind {entry.kind!r})")
    return entry


def entry_media_plan(entry: Any, settings: Mapping[str, Any]) -> MediaPlan:
    """The media of ``entry``'s requests: its server's ``limit_mm_per_prompt``; a hosted
    endpoint takes images (chat-completions APIs take images, not video), one per frame."""
    frames = int(settings["frames"])
    serve = entry.serve if entry.needs_server else {"limit_mm_per_prompt": {"image": frames}}
    return media_plan(serve, frames, str(settings["media"]))


@dataclass(frozen=True)
class ServeOptions:
    """Where a job's model is served: a running server's socket (``uds``), or a server the job
    starts (``server_argv`` replacing ``vllm serve``; ``model`` a local copy of the weights)."""

    uds: str | None = None
    server_argv: Sequence[str] | None = None
    vllm: str | None = None
    model: str | None = None
    server_log: str | None = None
    ready_timeout_s: float | None = None


@contextmanager
def served_client(entry: Any, options: ServeOptions) -> Iterator[InferenceClient]:
    """A client for ``entry``'s model: its endpoint when hosted, else its server, started (and
    stopped) here unless running."""
    if entry.hosted:
        with InferenceClient.for_endpoint(entry) as client:
            yield client
        return
    concurrency = int(entry.serve.get("max_num_seqs", 8))
    if options.uds:
        with InferenceClient(options.uds, entry.name, max_concurrency=concurrency) as client:
            yield client
        return
    from playsuite.inference.job_server import JobServer, ServerSettings

    tmp = tempfile.mkdtemp(prefix="psh-", dir="/tmp")  # socket paths must stay short
    settings = ServerSettings.from_schema(
        argv=list(options.server_argv) if options.server_argv else None,
        vllm=options.vllm or schema_default("config", "engine", "vllm"),
        model=options.model,
        ready_timeout_s=float(
            options.ready_timeout_s or schema_default("config", "horizon", "ready_timeout_s")
        ),
        monitor_interval_s=None,
    )
    server = JobServer(entry, Path(tmp) / "horizon.sock", settings, options.server_log)
    try:
        server.start()
        with InferenceClient(server.uds, entry.name, max_concurrency=concurrency) as client:
            client.recover = server.ensure_healthy
            yield client
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def game_text(
    episode_dir: str | os.PathLike[str],
    catalogs: Mapping[str, str] | str | None,
    games_dir: str | os.PathLike[str] | None = None,
) -> GameText:
    """What the prompts say about an episode's game: its corpus row when a table is given
    (``catalogs``: one table, or corpus -> table), else its id alone."""
    try:
        meta = read_meta(episode_dir)
    except EpisodeError:
        return GameText(Path(episode_dir).name, f"Title: {Path(episode_dir).name}")
    game_id, corpus = str(meta.get("game", "")), str(meta.get("corpus", ""))
    table = catalogs.get(corpus) if isinstance(catalogs, Mapping) else catalogs
    if not table:
        return GameText(game_id, f"Title: {game_id}")
    game = find_game(load_corpus(table), game_id)
    folder = Path(games_dir) / game.id / "files" if games_dir else None
    return GameText(
        game.title,
        game_context(game, read_readme(game, folder)),
        game.controls.strip() or "not stated",
    )


def annotate_episodes(
    annotator: str,
    episode_dirs: Sequence[str | os.PathLike[str]],
    settings: Mapping[str, Any],
    options: ServeOptions,
    *,
    catalogs: Mapping[str, str] | str | None = None,
    games_dir: str | os.PathLike[str] | None = None,
    index: str | os.PathLike[str] | None = None,
    prompts_dir: str | os.PathLike[str] | None = None,
    registry: Registry | None = None,
) -> dict[str, int]:
    """Annotate each episode into its ``horizon.json``; then write ``index`` if given. Returns
    a count per status."""
    entry = registry_entry(annotator, registry)
    prompts = load_prompts(prompts_dir)
    plan = entry_media_plan(entry, settings)
    counts: dict[str, int] = {}
    rows = []
    with served_client(entry, options) as client:
        worker = Annotator(annotator, client, prompts, settings, plan)
        for episode_dir in episode_dirs:
            doc = worker.annotate(episode_dir, game_text(episode_dir, catalogs, games_dir))
            write_annotation(episode_dir, doc)
            rows.append(index_row(episode_dir, doc))
            counts[doc["status"]] = counts.get(doc["status"], 0) + 1
    if index is not None:
        write_annotation_index(index, rows)
    return counts


def answer_file(
    preset: str,
    questions_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    settings: Mapping[str, Any],
    options: ServeOptions,
    *,
    prompts_dir: str | os.PathLike[str] | None = None,
    registry: Registry | None = None,
) -> dict[str, int]:
    """Have ``preset`` answer the question set at ``questions_path`` into ``out``; returns the
    count of ok and failed answers."""
    entry = registry_entry(preset, registry)
    questions = read_questions(questions_path)
    prompts = load_prompts(prompts_dir)
    plan = entry_media_plan(entry, settings)
    with served_client(entry, options) as client:
        doc = answer_questions(
            preset,
            questions,
            file_sha256(questions_path),
            client,
            prompts,
            plan,
            settings["answer_sampling"],
            attempts=int(settings["attempts"]),
        )
    write_answers(out, doc)
    counts: dict[str, int] = {}
    for answer in doc["answers"]:
        counts[answer["status"]] = counts.get(answer["status"], 0) + 1
    return counts
