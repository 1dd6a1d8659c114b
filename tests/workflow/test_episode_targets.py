"""One episode and its judgement are targets of their own: in a copy of the workflow, naming
``results/runs/{corpus}/{preset}/{condition}/{game}/meta.json`` plays just that game (no shard
job, no other game), ``--forcerun`` replays it, and the judgement file judges just it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from playsuite.config import with_defaults
from playsuite.planning.plan import Plan
from playsuite.records.conformance import CHECK_NAMES, read_table
from playsuite.runtimes.base import is_final_status

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
RUN = "results/runs/test/random/k0-hz0.33-base"
META = f"{RUN}/probe-a/meta.json"
JUDGEMENT = "results/judgements/frame/test/random/k0-hz0.33-base/probe-a.json"


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


@pytest.fixture(scope="module")
def work(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("episode") / "wf"
    shutil.copytree(
        repo,
        work,
        ignore=shutil.ignore_patterns(
            ".venv", ".venv-engine", "results", ".snakemake", ".git", "*.egg-info"
        ),
    )
    corpus = {"games": [game(repo, "probe-a"), game(repo, "probe-b")]}
    (work / "test_corpus.yaml").write_text(yaml.safe_dump(corpus))
    config = {
        "models": "config/models.yaml",
        "corpora": {"test": {"table": "test_corpus.yaml"}},
        "presets": ["random"],
        "conditions": ["k0-hz0.33-base"],
        "judges": ["frame"],
        "play": {"shard_size": 8, "workers": 1, "steps": 4, "wall_timeout_s": 120},
    }
    (work / "test_config.yaml").write_text(yaml.safe_dump(config))
    return work


def snakemake(work: Path, *args: str) -> subprocess.CompletedProcess:
    """Targets first: ``--quiet`` and ``--configfile`` take every word after them."""
    cmd = [SNAKEMAKE, *args, "--workflow-profile", "none", "--replace-workflow-config"]
    cmd += ["--configfile", "test_config.yaml"]
    return subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300)


def jobs(out: subprocess.CompletedProcess) -> dict[str, int]:
    """Job counts of a dry run's table (``--quiet rules``)."""
    return {
        parts[0]: int(parts[1])
        for line in out.stdout.splitlines()
        if len(parts := line.split()) == 2 and parts[1].isdigit()
    }


@pytest.mark.slow
def test_an_episode_is_played_and_judged_alone(work: Path) -> None:
    # Named beside its shard's manifest: the episode and its judgement are jobs of their own,
    # while the campaign's manifest still comes from a shard job (never episode by episode).
    dry = snakemake(work, JUDGEMENT, f"{RUN}/shards/s0000.tsv", "-n", "--quiet", "rules")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert jobs(dry) == {
        "acquire_game": 2,
        "acquired_block": 1,
        "play_episode": 1,
        "judge_episode": 1,
        "play_shard": 1,
        "total": 6,
    }

    out = snakemake(work, JUDGEMENT, "--cores", "2")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    meta = json.loads((work / META).read_text())
    assert (meta["game"], meta["preset"]) == ("probe-a", "random")
    assert meta["condition"] == "k0-hz0.33-base"
    assert is_final_status(meta["status"]), meta  # the game's own end, not a fault of ours
    assert not (work / RUN / "probe-b").exists()  # the other game of its shard is not played
    assert not (work / RUN / "shards").exists()  # no shard manifest: that is the shard job's
    judgement = json.loads((work / JUDGEMENT).read_text())
    assert judgement["status"] == "ok" and judgement["judge"] == "frame"
    assert not (work / "results/judgements/frame/test/random/k0-hz0.33-base/shards").exists()

    # --forcerun plays the episode again (a new meta.json), and nothing else
    before = (work / META).stat().st_mtime_ns
    replay = snakemake(work, META, "--cores", "1", "--forcerun", "play_episode")
    assert replay.returncode == 0, replay.stdout[-3000:] + replay.stderr[-3000:]
    assert (work / META).stat().st_mtime_ns > before
    assert json.loads((work / META).read_text())["game"] == "probe-a"
    log = replay.stdout + replay.stderr
    assert "rule play_episode" in log and "rule acquire_game" not in log


def test_an_episode_outside_the_plan_is_refused(work: Path) -> None:
    config = yaml.safe_load((work / "test_config.yaml").read_text())
    config["models"] = str(work / "config/models.yaml")
    config["corpora"]["test"]["table"] = str(work / "test_corpus.yaml")
    plan = Plan.from_config(with_defaults(config, "config"))
    wc = SimpleNamespace(corpus="test", preset="random", condition="k0-hz0.33-base", game="probe-a")
    assert plan.episode_unit(wc) == plan.unit_by_key[("test", "random", "k0-hz0.33-base", "s0000")]
    for change in ({"condition": "k3-hz0.33-base"}, {"game": "probe-c"}, {"preset": "explorer"}):
        with pytest.raises(ValueError, match="does not play game"):
            plan.episode_unit(SimpleNamespace(**{**vars(wc), **change}))


@pytest.mark.slow
def test_a_corpus_is_checked_for_conformance_as_a_target(work: Path) -> None:
    # Not part of the default target: asked for by name, one check job per game, one table.
    table = "results/conformance/test.tsv"
    out = snakemake(work, table, "--cores", "2")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    rows = read_table(work / table)
    assert [(r["game"], r["ok"]) for r in rows] == [("probe-a", "yes"), ("probe-b", "yes")]
    assert all(r[check] == "pass" for r in rows for check in CHECK_NAMES)
    assert "| pygame | 2 | 2 | 0 |" in (work / "results/conformance/test.md").read_text()
    verdict = json.loads((work / "results/games/probe-a/conformance.json").read_text())
    assert verdict["ok"] and verdict["runtime"] == "pygame"
