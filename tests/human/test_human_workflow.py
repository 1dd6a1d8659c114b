"""A person's episode flows through the workflow as it is: in a copy of the workflow with a
human episode on disk, the judge stage judges it with the models' episodes, the scores table
holds it under preset and family ``human``, and the main table has a human row. The workflow
never tries to play the people's episodes itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.harness.episode import EpisodeLimits
from playsuite.human.play import HumanRun, PlaySession, play_episode
from playsuite.records.episode import read_meta
from playsuite.runtimes.acquire import acquire

pytestmark = [pytest.mark.slow, pytest.mark.games]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
CONDITION = "k0-hz0.33-base"


def game(repo: Path, game_id: str) -> dict:
    return {
        "id": game_id,
        "title": "Probe game",
        "source": "local",
        "package": str(repo / "tests" / "fixtures" / "probe_game"),
        "runtime": "pygame",
        "entry": "main.py",
        "controls": "Arrow keys move the square, Space scores a point.",
    }


def answer_steps(session: PlaySession, actions: list[list[dict]]) -> None:
    """A person at the page, answering each paced step in turn (the page's own path is the
    browser test's)."""
    for step, answer in enumerate(actions):
        while not (session.state()["waiting"] and session.state()["step"] == step):
            time.sleep(0.02)
        session.submit(step, answer)


@pytest.fixture(scope="module")
def work(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("human") / "wf"
    shutil.copytree(
        repo,
        work,
        ignore=shutil.ignore_patterns(
            ".venv", ".venv-engine", "results", ".snakemake", ".git", "*.egg-info"
        ),
    )
    rows = [game(repo, "probe-a"), game(repo, "probe-b")]
    (work / "test_corpus.yaml").write_text(yaml.safe_dump({"games": rows}))
    config = {
        "models": "config/models.yaml",
        "corpora": {"test": {"table": "test_corpus.yaml"}},
        "presets": ["random"],
        "conditions": [CONDITION],
        "judges": ["frame"],
        "play": {"shard_size": 8, "workers": 1, "steps": 2, "wall_timeout_s": 120},
    }
    (work / "test_config.yaml").write_text(yaml.safe_dump(config))
    # the person's episode, where `playsuite human play` puts it
    entry = GameEntry.from_dict(rows[0])
    games = work / "results" / "games"
    acquire(entry, games)
    condition = Condition.parse(CONDITION)
    session = PlaySession("paced", condition.step_seconds)
    press = [
        [{"kind": "key", "keys": ["space"]}],
        [{"kind": "hold", "keys": ["right"], "seconds": 1}],
    ]
    threading.Thread(target=answer_steps, args=(session, press), daemon=True).start()
    out = work / "results" / "runs" / "test" / "human" / CONDITION / "probe-a"
    run = HumanRun(
        game=entry,
        games_dir=games,
        out_dir=out,
        player="p-0000000001",
        mode="paced",
        condition=condition,
        corpus="test",
        limits=EpisodeLimits(max_steps=2, max_game_s=None, wall_timeout_s=120),
    )
    assert play_episode(run, session)["status"] == "ok"
    return work


def snakemake(work: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [SNAKEMAKE, *args, "--workflow-profile", "none", "--replace-workflow-config"]
    cmd += ["--configfile", "test_config.yaml"]
    return subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=900)


def test_human_episodes_are_judged_scored_and_tabled(work: Path) -> None:
    meta = work / "results/runs/test/human" / CONDITION / "probe-a"
    before = read_meta(meta)
    out = snakemake(work, "results/tables/frame/main.csv", "--cores", "2")
    assert out.returncode == 0, out.stderr[-4000:]
    assert read_meta(meta) == before  # judged as it is, never replayed
    scores = pd.read_csv(work / "results/scores/frame.tsv", sep="\t")
    human = scores[scores["preset"] == "human"]
    assert list(human["game"]) == ["probe-a"] and list(human["family"]) == ["human"]
    assert list(human["status"]) == ["ok"]
    main = pd.read_csv(work / "results/tables/frame/main.csv")
    assert list(main["preset"]) == ["random", "human"]
    assert main.loc[main["preset"] == "human", "family"].item() == "human"
