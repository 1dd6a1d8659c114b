"""Scores checks, ablation files, cost records, the reproduction report and the table writer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from playsuite.analysis import figures
from playsuite.analysis.ablations import load_ablation
from playsuite.analysis.cost import cost_table, read_cost_records
from playsuite.analysis.efficiency import read_benchmarks
from playsuite.analysis.outputs import write_stat_table
from playsuite.analysis.reference import (
    Measured,
    RunContext,
    load_reference,
    main_cells,
    reproduction_markdown,
    reproduction_table,
    why_not_measured,
)
from playsuite.analysis.scores import SCORE_COLUMNS, ScoresError, check_scores, read_scores
from playsuite.analysis.settings import analysis_settings
from playsuite.config import ConfigError
from playsuite.planning.ablations import ablation_plan
from playsuite.registry import load_registry
from playsuite.testing.synthetic_scores import SyntheticSpec, synthetic_scores, write_scores_tsv

K0, K3 = "k0-hz0.33-base", "k3-hz0.33-base"


@pytest.fixture
def small() -> pd.DataFrame:
    return synthetic_scores(
        SyntheticSpec(
            presets={"random": ("baseline", 0.0), "qwen3-vl-8b": ("VLM", 1.0)},
            corpora={"local": 30},
            seed=1,
        )
    )


def test_synthetic_table_round_trips_through_the_documented_format(
    small: pd.DataFrame, tmp_path: Path
) -> None:
    path = tmp_path / "frame.tsv"
    write_scores_tsv(small, str(path))
    back = read_scores(path)
    assert tuple(back.columns) == SCORE_COLUMNS
    assert len(back) == len(small)
    assert back.loc[back["status"] != "ok", "level"].isna().all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.drop(columns="genre"), "missing columns"),
        (lambda d: pd.concat([d, d.iloc[:1]]), "repeat an episode"),
        (lambda d: d.assign(level=d["level"].astype(float).fillna(0) + 5), "outside 0..4"),
    ],
)
def test_bad_scores_are_refused(small: pd.DataFrame, change, message: str) -> None:
    with pytest.raises(ScoresError, match=message):
        check_scores(change(small))


def test_shipped_ablations_load_and_plan(repo: Path) -> None:
    registry = load_registry(repo / "config" / "models.yaml")
    names = {}
    for path in sorted((repo / "config" / "ablations").glob("*.yaml")):
        ab = load_ablation(path)
        names[ab.name] = ab
    assert set(names) >= {"history", "rate", "prompting"}
    games = {"itch": [f"g{i}" for i in range(1000)], "local": ["a", "b"]}
    presets = list(registry.presets)
    plan = ablation_plan(names["prompting"], games, presets, registry)
    chosen = {p for _, p, _, _ in plan}
    assert "qwen3-vl-8b" in chosen and "ui-tars-1.5-7b" not in chosen and "magma-8b" not in chosen
    assert all(len(g) == 200 for c, _, _, g in plan if c == "itch")
    assert all(g == ["a", "b"] for c, _, _, g in plan if c == "local")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind: history\nconditions: [k0-hz0.33-base, k3-hz3-base]\n", "varies only k"),
        ("kind: rate\nconditions: [k0-hz0.33-base, k3-hz0.33-base, k0-hz3-base]\n", "lacks"),
        ("kind: prompting\nconditions: [k3-hz0.33-base, k3-hz0.33-fewshot]\n", "reference"),
        ("kind: sideways\nconditions: [k3-hz0.33-base, k0-hz0.33-base]\n", "schema"),
    ],
)
def test_bad_ablation_files_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_ablation(path)


def test_settings_default_to_the_paper() -> None:
    s = analysis_settings({"seed": 3})
    assert s.bootstrap.resamples == 10_000 and s.bootstrap.seed == 3
    assert s.genre_min_games == 60 and s.stability.sizes == (50, 200, 500, 2000)
    assert s.stability_condition == K0
    with pytest.raises(ConfigError):
        analysis_settings({"analysis": {"main": {"with_history": "k3"}}})


def test_cost_counts_every_job_and_divides_by_scored_games(tmp_path: Path, repo: Path) -> None:
    d = tmp_path / "costs" / "local" / "qwen3-vl-8b"
    d.mkdir(parents=True)
    pd.DataFrame(
        {
            "corpus": "local",
            "preset": "qwen3-vl-8b",
            "condition": K0,
            "shard": [0, 1, 1],
            "wall_s": [3600.0, 1800.0, 7200.0],
            "gpus": [1, 1, 1],
            "status": ["ok", "failed", "ok"],
        }
    ).to_csv(d / "k0.tsv", sep="\t", index=False)
    scores = synthetic_scores(
        SyntheticSpec(
            presets={"random": ("baseline", 0.0), "qwen3-vl-8b": ("VLM", 1.0)},
            corpora={"local": 50},
            failure_rate=0.1,
            seed=4,
        )
    )
    costs = read_cost_records(tmp_path / "costs")
    table = cost_table(scores, costs, K0, load_registry(repo / "config" / "models.yaml"))
    table = table.set_index("preset")
    scored = int(
        (
            (scores["preset"] == "qwen3-vl-8b")
            & (scores["status"] == "ok")
            & (scores["condition"] == K0)  # the campaign's scored games only
        ).sum()
    )
    assert table.at["qwen3-vl-8b", "gpu_hours"] == pytest.approx(3.5)
    assert table.at["qwen3-vl-8b", "failed_jobs"] == 1
    assert table.at["qwen3-vl-8b", "gpu_hours_per_1k"] == pytest.approx(3.5 / scored * 1000)
    assert table.at["qwen3-vl-8b", "params_b"] == 8
    assert table.at["random", "gpu_hours_per_1k"] == 0.0  # a baseline needs no GPU
    none = cost_table(scores, read_cost_records(tmp_path / "nowhere"), K0, None)
    assert none["gpu_hours_per_1k"].isna().all()  # unknown, not free
    (d / "bad.tsv").write_text("preset\twall_s\nx\t1\n")
    with pytest.raises(ValueError, match="missing columns"):
        read_cost_records(tmp_path / "costs")


def test_reproduction_report_sets_measured_beside_published(repo: Path) -> None:
    published = load_reference(repo / "config" / "reference" / "paper.yaml")
    assert published["table2/itch/qwen3-vl-8b/k3"] == 0.64  # as printed in Table 2
    measured = main_cells(
        pd.DataFrame(
            {
                "family": ["VLM"],
                "preset": ["qwen3-vl-8b"],
                "itch k=3": [0.70],
                "itch k=3 low": [0.66],
                "itch k=3 high": [0.74],
                "itch Partial+ k=0 (%)": [40.0],
            }
        )
    )
    ctx = RunContext(corpora={"itch"}, presets={"qwen3-vl-8b"})
    table = reproduction_table(
        published,
        {**measured, "table2/new/x/k3": Measured(2.0)},
        lambda key: why_not_measured(key, ctx),
    )
    cells = table.set_index("cell")
    row = cells.loc["table2/itch/qwen3-vl-8b/k3"]
    assert row["measured"] == 0.70 and row["difference"] == pytest.approx(0.06)
    assert row["inside"] == "no"  # 0.64 lies below [0.66, 0.74]
    partial = cells.loc["table2/itch/qwen3-vl-8b/partial_k0"]
    assert partial["measured"] == 40.0 and partial["inside"] == "no interval"
    assert cells.at["table2/pyweek/qwen3-vl-8b/k3", "note"] == "corpus not in this run"
    assert cells.at["table2/itch/showui-2b/k3", "note"] == "preset not in this run"
    assert cells.at["table4/itch/accidents", "note"].startswith("no harm table read")
    assert cells.at["ablations/rate/pyweek/hz3/gap", "note"] == "not planned in this config"
    assert cells.at["agreement/human/alpha", "note"].startswith("no ratings CSV")
    assert cells.at["table2/new/x/k3", "note"] == "not published"
    assert "no throughput.tsv" in cells.at["efficiency/play/workers8_per_gpu_hour", "note"]
    assert "no catalog funnel" in cells.at["table5/drag_only", "note"]
    md = reproduction_markdown(table)
    assert "| table2/itch/qwen3-vl-8b/k3 | 0.640 | 0.700 | [0.660, 0.740] | 0.060 | no |" in md
    assert "the published value lies inside the measured 95 % interval for 0, outside for 1" in md


def test_stat_table_writes_three_forms_with_bold_best(tmp_path: Path) -> None:
    t = pd.DataFrame({"preset": ["a", "b"], "m": [1.0, 2.0], "m low": [0.5, 1.5]})
    write_stat_table(
        t,
        tmp_path / "t.csv",
        tmp_path / "t.md",
        tmp_path / "t.tex",
        show=["preset", "m"],
        bold=["m"],
        caption="x_y",
    )
    assert "m low" in (tmp_path / "t.csv").read_text()
    assert "**2.00**" in (tmp_path / "t.md").read_text()
    tex = (tmp_path / "t.tex").read_text()
    assert r"\textbf{2.00}" in tex and "low" not in tex and r"x\_y" in tex


@pytest.mark.slow
def test_every_figure_renders_with_data_and_without(tmp_path: Path) -> None:
    empty = pd.DataFrame()
    bench = read_benchmarks(tmp_path)
    assert all(v is None for v in bench.values())
    (tmp_path / "launch.tsv").write_text(
        "runtime\tgame\tlaunch_s\npygame\ta\t0.4\nbrowser\tb\t1.9\n"
    )
    cases = {
        "stability_empty": figures.stability_figure(empty),
        "history_empty": figures.history_figure(empty, "t"),
        "rate_empty": figures.rate_figure(empty, empty, "t"),
        "prompting_empty": figures.prompting_figure(empty, "t"),
        "heatmap_empty": figures.genre_heatmap(empty, "t"),
        "cost_empty": figures.cost_figure(empty),
        "efficiency": figures.efficiency_figure(read_benchmarks(tmp_path)),
        "heatmap": figures.genre_heatmap(
            pd.DataFrame(np.eye(3), index=list("abc"), columns=["X", "Y", "Z"]), "t"
        ),
    }
    for name, fig in cases.items():
        figures.save_figure(fig, tmp_path / f"{name}.pdf", tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.pdf").read_bytes()[:4] == b"%PDF"
        assert (tmp_path / f"{name}.png").read_bytes()[:4] == b"\x89PNG"


def test_per_corpus_game_subsets(tmp_path: Path) -> None:
    path = tmp_path / "h.yaml"
    path.write_text(
        "kind: history\nconditions: [k0-hz0.33-base, k3-hz0.33-base]\n"
        "games: {itch: {count: 20, seed: 3}, pyweek: all}\n"
    )
    ab = load_ablation(path)
    games = {"itch": [f"i{i}" for i in range(100)], "pyweek": [f"p{i}" for i in range(30)]}
    plan = {(c, cond): g for c, _, cond, g in ablation_plan(ab, games, ["random"], None)}
    assert len(plan[("itch", "k0-hz0.33-base")]) == 20
    assert plan[("itch", "k0-hz0.33-base")] == plan[("itch", "k3-hz0.33-base")]
    assert plan[("pyweek", "k3-hz0.33-base")] == sorted(games["pyweek"])
