"""The workflow plans, lints clean, and rejects an invalid configuration."""

import shutil
import subprocess
import sys
from pathlib import Path

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([SNAKEMAKE, *args], cwd=repo, capture_output=True, text=True, timeout=300)


def test_dry_run_plans_default_target(repo: Path) -> None:
    out = run(repo, "-n", "--forceall", "--quiet", "rules")
    assert out.returncode == 0, out.stderr
    assert "tabulate_models" in out.stdout + out.stderr


def test_lint_is_clean(repo: Path) -> None:
    out = run(repo, "--lint")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Congratulations" in out.stdout + out.stderr


def test_invalid_config_is_refused(repo: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("conditions: [k3-fast]\n")
    out = run(repo, "-n", "--configfile", str(bad))
    assert out.returncode != 0
    assert "conditions" in out.stdout + out.stderr


def test_models_table_is_built(repo: Path, tmp_path: Path) -> None:
    work = tmp_path / "wf"
    shutil.copytree(
        repo,
        work,
        ignore=shutil.ignore_patterns(".venv", "results", ".snakemake", ".git", "*.egg-info"),
    )
    out = run(work, "--cores", "1", "results/tables/models.csv")
    assert out.returncode == 0, out.stderr
    text = (work / "results/tables/models.md").read_text()
    assert "ui-tars-1.5-7b" in text and "| CUA |" in text
