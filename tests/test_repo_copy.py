"""The repository copy that workflow tests run Snakemake in (playsuite.testing.repo)."""

from __future__ import annotations

from pathlib import Path

from playsuite.testing.repo import copy_repo


def test_copy_leaves_out_environments_results_and_caches(tmp_path: Path) -> None:
    source = tmp_path / "src"
    for name in ("Snakefile", "rules/play.smk", "src/pkg/mod.py", "tests/data/results.csv"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(name)
    for name in (".venv/bin/python", "results/x.tsv", "src/pkg/__pycache__/m.pyc", ".git/HEAD"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text("left out")
    (source / "config.yaml").symlink_to(source / "Snakefile")
    dest = tmp_path / "dest"
    dest.mkdir()  # an existing folder is filled, as the Slurm test's node root is
    assert copy_repo(source, dest) == dest
    copied = {str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file()}
    assert copied == {
        "Snakefile",
        "rules/play.smk",
        "src/pkg/mod.py",
        "tests/data/results.csv",
        "config.yaml",
    }
    assert not (dest / "config.yaml").is_symlink()  # symlinks are followed, as before
    assert (dest / "config.yaml").read_text() == "Snakefile"


def test_repo_copy_fixture_is_a_runnable_checkout(repo_copy: Path) -> None:
    assert (repo_copy / "Snakefile").is_file() and (repo_copy / "config" / "config.yaml").is_file()
    assert not (repo_copy / ".venv").exists() and not (repo_copy / ".git").exists()
