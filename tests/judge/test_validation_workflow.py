"""The validation rules in a copy of the workflow: played shards -> blinded sample -> the
validation judge -> its rating rows -> the agreement table, without and then with human ratings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from playsuite.records.manifest import EpisodeSummary, write_manifest
from playsuite.testing.synthetic_episode import idle_script, playing_script, write_episode

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
CORPUS = """\
games:
  - {id: toy-a, title: Toy A, source: local, package: toy, runtime: pygame, entry: a.py,
     genre: Platformer}
  - {id: toy-b, title: Toy B, source: local, package: toy, runtime: pygame, entry: b.py,
     genre: Puzzle}
"""
PRESETS = ["random", "explorer"]
CONDITIONS = ["k0-hz0.33-base", "k3-hz0.33-base"]
RULES = ["validation_sample", "validation_judge", "validation_ratings", "judge_agreement"]


def snake(work: Path, *targets: str) -> None:
    out = subprocess.run(
        # --allowed-rules: the stand-in play manifests are never remade
        [
            SNAKEMAKE,
            *targets,
            "--cores",
            "2",
            "--configfile",
            "test_config.yaml",
            "--allowed-rules",
            *RULES,
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]


@pytest.mark.slow
def test_validation_set_is_judged_and_compared(repo_copy: Path) -> None:
    work = repo_copy
    (work / "test_corpus.yaml").write_text(CORPUS)
    config = {
        "corpora": {"test": {"table": "test_corpus.yaml"}},
        "presets": PRESETS,
        "conditions": CONDITIONS,
        "judges": ["frame"],
        "validation": {"judges": ["frame"], "per_corpus": {"test": 4}},
    }
    (work / "test_config.yaml").write_text(yaml.safe_dump(config))
    # Stand in for the play stage: one shard per run; explorer's toy-b crashed without a video
    for preset in PRESETS:
        for condition in CONDITIONS:
            run = Path("results/runs/test") / preset / condition
            rows = []
            for game in ("toy-a", "toy-b"):
                crashed = preset == "explorer" and game == "toy-b"
                script = idle_script() if game == "toy-b" else playing_script()
                if not crashed:
                    write_episode(work / run / game, script)
                rows.append(
                    EpisodeSummary(
                        game=game,
                        status="crashed" if crashed else "ok",
                        steps=3,
                        frames=30,
                        t_game=10.0,
                        wall_s=12.0,
                        invalid_rate=0.0,
                        episode_dir=str(run / game),
                    )
                )
            write_manifest(work / run / "shards/s0000.tsv", rows)

    snake(work, "results/tables/agreement.csv")
    key = pd.read_csv(work / "results/validation/sample.tsv", sep="\t", dtype=str)
    assert len(key) == 4 and set(key["preset"]) == set(PRESETS)
    assert set(key["condition"]) == set(CONDITIONS)
    assert not ((key["preset"] == "explorer") & (key["game"] == "toy-b")).any()
    raters = pd.read_csv(work / "results/validation/raters.csv", dtype=str)
    assert list(raters.columns) == ["video_id", "video"]
    assert all((work / v).is_file() for v in raters["video"])
    judged = pd.read_csv(work / "results/validation/judge_ratings.csv", dtype=str)
    assert set(judged["video_id"]) == set(key["video_id"])
    assert (judged["rater"] == "judge:frame").all() and judged["level"].notna().all()
    assert (work / "results/validation/judgements/frame/manifest.tsv").is_file()
    assert "No human ratings" in (work / "results/tables/agreement.md").read_text()

    # the raters' CSV: h1 agrees with the judge, h2 is two levels off on every video
    level = judged.set_index("video_id")["level"].astype(int)
    rows = [(v, "h1", lvl) for v, lvl in level.items()]
    rows += [(v, "h2", (lvl + 2) % 5) for v, lvl in level.items()]
    ratings = pd.DataFrame(rows, columns=["video_id", "rater", "level"])
    ratings.to_csv(work / "ratings.csv", index=False)
    config["analysis"] = {"ratings": "ratings.csv"}
    (work / "test_config.yaml").write_text(yaml.safe_dump(config))
    snake(work, "results/tables/agreement.csv")
    table = pd.read_csv(work / "results/tables/agreement.csv").set_index("comparison")
    assert table.at["frame-human", "pairs"] == 8 and table.at["frame-human", "exact"] == 0.5
    assert table.at["human-human", "pairs"] == 4 and table.at["human-human", "within_one"] == 0
