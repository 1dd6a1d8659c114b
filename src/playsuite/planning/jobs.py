"""Workflow jobs as package functions: what a rule's script does, given its inputs and outputs.

A script under workflow/scripts/ only unpacks ``snakemake.input/output/params`` and calls one
function here, so the job's logic is importable, testable and free of Snakemake. The functions
know the results/ layout only through :mod:`playsuite.planning.paths`.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from playsuite.corpus import find_game, load_corpus
from playsuite.files import write_json_atomic
from playsuite.planning.paths import EpisodeKey


def probe_episodes(episode_dirs: Sequence[str], catalogs: Mapping[str, str]) -> list[str]:
    """The episodes whose game declares probes (what the state judge can judge)."""
    keep = []
    tables: dict[str, set[str]] = {}
    for d in episode_dirs:
        key = EpisodeKey.from_dir(d)
        if key.corpus not in tables:
            table = catalogs.get(key.corpus)
            tables[key.corpus] = {g.id for g in load_corpus(table) if g.probes} if table else set()
        if key.game in tables[key.corpus]:
            keep.append(d)
    return keep


def judge_job(
    judge: str,
    episodes: Sequence[str],
    *,
    play_manifest: str = "",
    judgement_dir: str,
    manifest: str | None,
    settings: Mapping[str, Any],
    catalogs: Mapping[str, str],
    games_dir: str,
    vllm: str,
    server_argv: Sequence[str],
    log: str,
    costs: str | None,
    cost_fields: Mapping[str, Any],
) -> dict[str, int]:
    """One judge job (rules judge_shard and judge_episode): ``judge`` judges ``episodes`` into
    ``judgement_dir/{game}.json`` with one model server for Video-LLM judges, and writes the
    shard ``manifest`` when given. A shard whose ``episodes`` are not listed judges those of
    its ``play_manifest``. The state judge keeps only episodes of games with probes.

    A shard job's attempt has a cost record (``costs``) from its start: a killed attempt keeps
    "running" and is counted as killed (playsuite.harness.costs); judging is reported apart from
    the cost figure. One episode's job (no manifest) has none: it is no part of a campaign.
    """
    from playsuite.harness.costs import JUDGE_COLUMNS, CostRecord
    from playsuite.judge.run import judge_shard, run_shard_manifest, shard_options
    from playsuite.records.manifest import manifest_episodes

    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    episodes = list(episodes) or manifest_episodes(play_manifest)
    if judge == "state":
        kept = probe_episodes(episodes, catalogs)
        if manifest is None and len(kept) < len(episodes):
            raise ValueError(f"the state judge judges games with probes only, not {episodes}")
        episodes = kept
    options = shard_options(
        dict(settings),
        dict(catalogs),
        episodes,
        games_dir,
        vllm=vllm,
        server_argv=server_argv,
        server_log=log + ".server",
    )
    cost = None
    if costs:
        Path(costs).parent.mkdir(parents=True, exist_ok=True)
        prefetch = settings.get("prefetch")
        fields = {
            "judge": judge,
            **cost_fields,
            "prefetch": "" if prefetch is None else int(prefetch),
        }
        cost = CostRecord(Path(costs), fields, columns=JUDGE_COLUMNS).start()
    status = "failed"
    try:
        if manifest is not None:
            counts = run_shard_manifest(judge, episodes, judgement_dir, manifest, options)
        else:
            jobs = [(d, f"{judgement_dir}/{EpisodeKey.from_dir(d).game}.json") for d in episodes]
            counts = judge_shard(judge, jobs, options)
        status = "ok"
    finally:
        if cost is not None:
            cost.finish(status)
    print(f"judge {judge}: {len(episodes)} episodes, {counts}", file=sys.stderr)
    return counts


def validate_launch_job(catalog: str, game_id: str, acquired: str, output: str, log: str) -> dict:
    """Rule validate_launch: an acquired game renders non-blank frames and reacts to input
    (playsuite.runtimes.validate); its games' own logs are gathered into ``log``."""
    from playsuite.runtimes.validate import validate_launch

    return _check_acquired_game(catalog, game_id, acquired, output, log, validate_launch)


def validate_launch_block_job(
    catalog: str,
    acquired: Sequence[str],
    output: str,
    log: str,
    game_logs: str,
    workers: int = 1,
) -> None:
    """Rule validate_launch_block: launch validation of one acquisition block's games in one
    job, each game's verdict in its own ``launch.json`` (as rule validate_launch writes it) and
    each game's log in ``game_logs/{game}.log`` (where rule validate_launch puts it). A game
    validated before (its ``launch.json`` exists, e.g. by a killed block job) is not run again;
    a game whose runtime this build lacks is listed as such. ``output`` lists every game's
    verdict (playsuite.records.launch).

    ``workers`` games are validated at a time, each in its own spawned process (a game starts
    its own display, sandbox and browser, as a play shard's workers do): a block of 64 games is
    the job's whole wall time, so one game after another would leave the job's cores idle."""
    from playsuite.records.launch import write_block
    from playsuite.runtimes.factory import RUNTIMES

    corpus = load_corpus(catalog)
    verdicts: dict[str, dict] = {}
    pending: dict[str, tuple[str, str, str, str, str]] = {}
    order = []
    for path in acquired:
        game_id = Path(path).parent.name
        order.append(game_id)
        game = find_game(corpus, game_id)
        launch = Path(path).parent / "launch.json"  # beside acquired.json, as paths.LAUNCH
        if game.runtime not in RUNTIMES:
            verdicts[game_id] = {"game": game_id, "ok": False, "error": "no runtime"}
        elif launch.is_file():
            verdicts[game_id] = json.loads(launch.read_text())
        else:
            game_log = str(Path(game_logs) / f"{game_id}.log")
            pending[game_id] = (catalog, game_id, path, str(launch), game_log)
    with open(log, "w") as out:

        def done(game_id: str, verdict: dict) -> None:
            verdicts[game_id] = verdict
            print(f"{game_id}: {'ok' if verdict.get('ok') else 'failed'}", file=out, flush=True)

        for game_id in order:
            if game_id in verdicts:
                done(game_id, verdicts[game_id])
        if workers <= 1 or len(pending) <= 1:
            for game_id, args in pending.items():
                done(game_id, validate_launch_job(*args))
        else:
            spawn = multiprocessing.get_context("spawn")  # no forked copy of this job's threads
            with ProcessPoolExecutor(min(workers, len(pending)), mp_context=spawn) as pool:
                running = {pool.submit(validate_launch_job, *a): g for g, a in pending.items()}
                for future in as_completed(running):
                    done(running[future], future.result())
    write_block(output, [verdicts[game_id] for game_id in order])


def conformance_job(catalog: str, game_id: str, acquired: str, output: str, log: str) -> dict:
    """Rule check_conformance: one acquired game through the runtime contract
    (playsuite.harness.conformance); its games' own logs are gathered into ``log``."""
    from playsuite.harness.conformance import check_game

    def check(game: Any, files: Path, workdir: Path) -> dict:
        return check_game(game, files, workdir).to_dict()

    return _check_acquired_game(catalog, game_id, acquired, output, log, check)


def _check_acquired_game(
    catalog: str, game_id: str, acquired: str, output: str, log: str, check: Any
) -> dict:
    """Run ``check(game, files, workdir)`` on an acquired game in a scratch folder, gather the
    game's logs into ``log`` and write the verdict to ``output``."""
    game = find_game(load_corpus(catalog), game_id)
    workdir = Path(tempfile.mkdtemp(prefix=f"check-{game.id}-"))
    try:
        verdict = check(game, Path(acquired).parent / "files", workdir)
    finally:
        _gather_logs(workdir, log)
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(verdict))
    write_json_atomic(output, verdict)
    return verdict


def conformance_table_job(verdicts: Sequence[str], table: str, summary_md: str) -> None:
    """Rule conformance_table: a corpus's verdicts as one table and a Markdown summary (pass
    counts per runtime, failure reasons counted)."""
    from playsuite.files import atomic_open
    from playsuite.records.conformance import read_table, summary, write_table

    write_table(table, [json.loads(Path(p).read_text()) for p in verdicts])
    with atomic_open(summary_md) as fh:
        fh.write(summary(read_table(table)))


def _gather_logs(workdir: Path, log: str) -> None:
    with open(log, "w") as out:
        for path in sorted(workdir.rglob("game.log")):
            out.write(f"== {path.relative_to(workdir)}\n{path.read_text(errors='replace')}\n")


def acquire_job(catalog: str, game_id: str, games_dir: str | Path, log: str) -> None:
    """Rule acquire_game: fetch one game of the corpus table ``catalog`` from its registry into
    ``games_dir/{game}/``; the fetch's own messages go to ``log``."""
    from playsuite.runtimes.acquire import acquire

    with open(log, "w") as out:
        acquire(find_game(load_corpus(catalog), game_id), games_dir, log=out)


def tiny_model_job(arch: str, output: str, vllm: str) -> dict:
    """Rule build_tiny_model: one tiny random-weight model of architecture ``arch`` into the
    folder ``output``, built with the engine's own Python (``vllm``'s); its summary is logged."""
    from playsuite.inference.engine import build_tiny_model

    summary = build_tiny_model(arch, output, vllm=vllm)
    print(f"{output}: {arch}: {json.dumps(summary)}", file=sys.stderr)
    return summary


def judge_scores_job(
    judge: str,
    manifests: Sequence[str],
    families: Mapping[str, str],
    genres: Mapping[str, str],
    output: str,
) -> None:
    """Rule judge_scores: a judge's shard ``manifests`` collected into its scores table.
    ``families`` maps preset to family; ``genres`` maps ``"corpus/game"`` to the game's genre."""
    from playsuite.judge.scores import collect_scores
    from playsuite.records.manifest import read_judge_manifest
    from playsuite.records.scores import write_scores

    pairs = [
        (row["judgement"], row["episode_dir"])
        for manifest in manifests
        for row in read_judge_manifest(manifest)
    ]
    by_game = {tuple(key.split("/", 1)): genre for key, genre in genres.items()}
    df = collect_scores(judge, pairs, dict(families), by_game)
    write_scores(df, output)
    print(f"{len(df)} rows from {len(manifests)} shards -> {Path(output)}", file=sys.stderr)
