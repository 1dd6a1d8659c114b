"""The engine-check table and report section; the paper tables leave random-weight models out."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pandas as pd

from playsuite.analysis.cost import cost_table, read_cost_records
from playsuite.analysis.engine_checks import TITLE, engine_check_markdown, engine_check_table
from playsuite.analysis.models_table import models_table
from playsuite.judge.result import FAILED, empty_milestones, failed, judgement, write_judgement
from playsuite.records.manifest import JUDGE_COLUMNS as MANIFEST_COLUMNS
from playsuite.records.manifest import EpisodeSummary, write_manifest
from playsuite.registry import load_registry
from playsuite.testing.synthetic_scores import SyntheticSpec, synthetic_scores

REPO = Path(__file__).resolve().parents[2]
RUN = "results/runs/local/tiny-qwen2.5-vl/k3-hz0.33-base"


def write_check_run(root: Path) -> tuple[Path, Path]:
    """A check run of three episodes (two played, one that never launched) and its judgements:
    one with a level, one schema failure, one without video."""
    episodes = {
        # game: (status, steps, invalid steps, model seconds)
        "alpha": ("ok", 6, 6, 12.0),
        "beta": ("ok", 6, 3, 6.0),
        "gamma": ("launch_failed", 0, 0, 0.0),
    }
    rows = []
    for game, (status, steps, invalid, model_s) in episodes.items():
        ep = root / RUN / game
        ep.mkdir(parents=True)
        meta = {"status": status, "steps": steps, "invalid_steps": invalid, "model_s": model_s}
        (ep / "meta.json").write_text(json.dumps(meta))
        rows.append(
            EpisodeSummary(game, status, steps, 0, 0.0, 1.0, invalid / (steps or 1), str(ep))
        )
    play = root / RUN / "shards" / "s0000.tsv"
    write_manifest(play, rows)

    milestones = {**empty_milestones(), "player_control_evident": True, "distinct_interactions": 2}
    judged = {
        "alpha": judgement(milestones, "tiny-judge"),
        "beta": failed("tiny-judge", FAILED, "no schema-valid answer after 3 attempts"),
        "gamma": failed("tiny-judge", "no_video", "no video"),
    }
    jdir = root / "results/judgements/tiny-judge/local/tiny-qwen2.5-vl/k3-hz0.33-base"
    manifest = jdir / "shards" / "s0000.tsv"
    manifest.parent.mkdir(parents=True)
    with open(manifest, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(MANIFEST_COLUMNS)
        for game, obj in judged.items():
            write_judgement(jdir / f"{game}.json", obj)
            level = obj.get("level", "")
            writer.writerow(
                [game, obj["status"], level, jdir / f"{game}.json", root / RUN / game, ""]
            )
    return play, manifest


def test_engine_check_table_reports_how_the_path_went(tmp_path: Path) -> None:
    play, judged = write_check_run(tmp_path)
    table = engine_check_table([play], "tiny-judge", [judged])
    assert len(table) == 1
    row = table.iloc[0]
    assert (row["corpus"], row["preset"], row["condition"]) == (
        "local",
        "tiny-qwen2.5-vl",
        "k3-hz0.33-base",
    )
    assert row["episodes"] == 3 and row["episode_statuses"] == "launch_failed:1 ok:2"
    assert row["steps"] == 12
    assert math.isclose(row["invalid_rate"], 9 / 12)
    assert math.isclose(row["model_latency_s"], 18.0 / 12)
    assert row["judge"] == "tiny-judge" and row["judged"] == 1
    assert row["judge_statuses"] == "failed:1 no_video:1 ok:1"
    assert row["mean_level"] == 1.0 and row["levels"] == "1:1"


def test_unjudged_runs_say_so(tmp_path: Path) -> None:
    play, _ = write_check_run(tmp_path)
    row = engine_check_table([play], "tiny-judge", []).iloc[0]
    assert row["judged"] == 0 and row["judge_statuses"] == "not judged"
    assert math.isnan(row["mean_level"])


def test_markdown_is_labelled_as_checks_not_results(tmp_path: Path) -> None:
    play, judged = write_check_run(tmp_path)
    text = engine_check_markdown(engine_check_table([play], "tiny-judge", [judged]), "##")
    assert text.startswith(f"## {TITLE}\n") and "not results" in TITLE
    assert "| local | tiny-qwen2.5-vl | k3-hz0.33-base | 3 |" in text
    empty = engine_check_markdown(pd.DataFrame())
    assert empty.startswith(f"# {TITLE}") and "(no engine checks ran)" in empty


def test_models_table_leaves_out_the_random_weight_presets() -> None:
    registry = load_registry(REPO / "config" / "models.yaml")
    table = models_table(registry)
    extra = {name for name, p in registry.presets.items() if p.extra}
    assert extra >= {"tiny-qwen2-vl", "tiny-qwen2.5-vl", "tiny-qwen3-vl"}
    assert not extra & set(table["preset"])
    assert len(table) == len(registry.presets) - len(extra)


def test_cost_table_leaves_out_the_checks_cost_records(tmp_path: Path) -> None:
    """The check's play job writes its cost record beside the baselines' (results/costs/...);
    the paper's cost table does not list it."""
    for preset in ("random", "tiny-qwen2.5-vl"):
        folder = tmp_path / "costs" / "local" / preset / "k3-hz0.33-base"
        folder.mkdir(parents=True)
        (folder / "s0000.tsv").write_text(
            "corpus\tpreset\tcondition\tshard\twall_s\tgpus\tstatus\n"
            f"local\t{preset}\tk3-hz0.33-base\ts0000\t600\t0\tok\n"
        )
    scores = synthetic_scores(SyntheticSpec(presets={"random": ("baseline", 0.0)}, seed=1))
    costs = read_cost_records(tmp_path / "costs")
    registry = load_registry(REPO / "config" / "models.yaml")
    assert set(costs["preset"]) == {"random", "tiny-qwen2.5-vl"}
    # The campaign is the check's condition, so only ``exclude`` can leave its records out.
    both = cost_table(scores, costs, "k3-hz0.33-base", registry)
    assert set(both["preset"]) == {"random", "tiny-qwen2.5-vl"}
    paper = cost_table(scores, costs, "k3-hz0.33-base", registry, exclude=["tiny-qwen2.5-vl"])
    assert list(paper["preset"]) == ["random"] and list(paper["jobs"]) == [1]
