"""Judge one shard of episodes with one judge (one model server for VLM judges)."""

import logging
import sys
from pathlib import Path

from playsuite.judge.run import (
    JudgeOptions,
    play_manifest_episodes,
    probe_episodes,
    run_shard_manifest,
)

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115
logging.basicConfig(stream=sys.stderr, level=logging.INFO)

p = snakemake.params
catalogs = dict(p.catalogs)
episodes = list(p.episodes) or play_manifest_episodes(p.play_manifest)
if p.judge == "state":
    episodes = probe_episodes(episodes, catalogs)
# README contexts (PyWeek-style games) come from the acquired game files.
game_dirs = {Path(e).name: str(Path(p.games_dir) / Path(e).name / "files") for e in episodes}
options = JudgeOptions(
    catalog=catalogs,
    game_dirs=game_dirs,
    attempts=int(p.settings["attempts"]),
    extra_body=dict(p.settings["extra_body"]),
    vllm=p.vllm,
    server_argv=list(p.server_argv) or None,
    server_log=str(snakemake.log[0]) + ".server",
    ready_timeout_s=float(p.settings["ready_timeout_s"]),
)
counts = run_shard_manifest(p.judge, episodes, p.judgement_dir, snakemake.output.manifest, options)
print(f"judge {p.judge}: {len(episodes)} episodes, {counts}", file=sys.stderr)
