"""The files the Snakemake workflow catalog reads: LICENSE, config/README.md and
.snakemake-workflow-catalog.yml, and the usage they show."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
DEPLOYMENT_METHODS = {"conda", "apptainer", "apptainer+conda"}


def catalog_settings(repo: Path) -> dict:
    return yaml.safe_load((repo / ".snakemake-workflow-catalog.yml").read_text())


def test_license_is_the_one_pyproject_declares(repo: Path) -> None:
    declared = tomllib.loads((repo / "pyproject.toml").read_text())["project"]["license"]["text"]
    assert declared == "MIT"
    text = (repo / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text


def test_catalog_settings_have_the_catalogs_shape(repo: Path) -> None:
    usage = catalog_settings(repo)["usage"]
    assert set(usage) == {"mandatory-flags", "software-stack-deployment", "report"}
    flags = usage["mandatory-flags"]
    assert set(flags) == {"desc", "flags"}
    assert isinstance(flags["desc"], str) and flags["desc"].strip()
    assert isinstance(flags["flags"], str | list)
    methods = usage["software-stack-deployment"]
    assert set(methods) == DEPLOYMENT_METHODS
    assert all(isinstance(v, bool) for v in methods.values()) and any(methods.values())
    assert isinstance(usage["report"], bool)


def test_every_conda_env_a_rule_names_exists(repo: Path) -> None:
    """``conda: true`` promises that ``--sdm conda`` deploys the software of the rules: every
    env file a rule names exists."""
    assert catalog_settings(repo)["usage"]["software-stack-deployment"]["conda"]
    named = set()
    for smk in (repo / "rules").glob("*.smk"):
        lines = smk.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.strip() == "conda:":
                named.add(lines[i + 1].strip().strip('"'))
    assert named, "no rule names a conda env"
    for env in named:
        assert (repo / "rules" / env).resolve().is_file(), env


def test_config_readme_names_every_key_group_and_file(repo: Path) -> None:
    """The catalog shows config/README.md as the workflow's configuration page: it stays true
    to the schema's top-level keys and to the files in config/."""
    text = (repo / "config" / "README.md").read_text()
    schema = json.loads((repo / "config" / "schemas" / "config.schema.json").read_text())
    for key in schema["properties"]:
        assert f"`{key}`" in text, key
    for path in (repo / "config").iterdir():
        if path.name == "README.md":
            continue
        name = path.name + ("/" if path.is_dir() else "")
        assert name.rstrip("/") in text, name


@pytest.mark.slow
def test_usage_with_the_mandatory_flags_plans(repo: Path) -> None:
    """What the catalog shows, less ``--sdm conda`` (no conda here): snakemake with the
    mandatory flags plans the default target from the repository root."""
    flags = catalog_settings(repo)["usage"]["mandatory-flags"]["flags"]
    argv = shlex.split(flags) if isinstance(flags, str) else list(flags)
    out = subprocess.run(
        [SNAKEMAKE, "--cores", "all", *argv, "-n", "--quiet", "rules"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "tabulate_models" in out.stdout + out.stderr
