"""The workflow scripts' job functions (playsuite.planning.*_jobs) called as a script calls them:
the files a rule declares are written, and the log lines the rule's log had are printed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from playsuite.analysis.efficiency import BENCHMARK_FILES
from playsuite.analysis.engine_checks import TITLE
from playsuite.analysis.models_table import models_table
from playsuite.planning.analysis_jobs import engine_checks_job, models_table_job
from playsuite.planning.efficiency_jobs import efficiency_job
from playsuite.registry import load_registry
from tests.analysis.test_engine_checks import write_check_run

REPO = Path(__file__).resolve().parents[2]


def outputs(root: Path, stem: str, *exts: str) -> dict[str, str]:
    return {ext: str(root / f"{stem}.{ext}") for ext in exts}


def test_models_table_job_writes_the_registry_table(tmp_path: Path) -> None:
    models = str(REPO / "config" / "models.yaml")
    out = outputs(tmp_path, "models", "csv", "md", "tex")
    models_table_job(models, out)
    table = pd.read_csv(out["csv"])
    assert list(table["preset"]) == list(models_table(load_registry(models))["preset"])
    assert (
        "Evaluated presets: family, size, parser and prompt template."
        in Path(out["tex"]).read_text()
    )
    md = Path(out["md"]).read_text()
    assert all(f" {preset} " in md for preset in table["preset"])


def test_engine_checks_job_writes_and_logs(tmp_path: Path, capsys) -> None:
    play, judged = write_check_run(tmp_path)
    out = outputs(tmp_path / "tables", "engine_checks", "csv", "md")
    engine_checks_job([str(play)], "tiny-judge", [str(judged)], out)
    table = pd.read_csv(out["csv"])
    assert len(table) == 1 and table.at[0, "judged"] == 1
    assert Path(out["md"]).read_text().startswith(f"# {TITLE}\n")
    assert f"1 engine-check runs -> {out['csv']}" in capsys.readouterr().err


def test_efficiency_job_names_what_is_missing(tmp_path: Path, capsys) -> None:
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    efficiency_job(str(bench), str(tmp_path / "e.pdf"), str(tmp_path / "e.png"))
    err = capsys.readouterr().err.splitlines()
    assert err == [f"{name}: missing" for name in BENCHMARK_FILES]
    assert (tmp_path / "e.pdf").stat().st_size > 0 and (tmp_path / "e.png").stat().st_size > 0
