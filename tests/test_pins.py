"""Versions the project pins: the vLLM image, the Slurm executor plugin's lower bound and the
lock file of the Python environment."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]


def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def direct_requirements() -> list[Requirement]:
    meta = project()
    lines = list(meta["dependencies"])
    for extra in meta.get("optional-dependencies", {}).values():
        lines += extra
    return [Requirement(line) for line in lines]


def lock() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (REPO / "requirements.lock").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, version = line.partition("==")
        assert version and name == canonicalize_name(name), line
        assert name not in pins, f"{name} pinned twice"
        pins[name] = version
    return pins


def test_vllm_image_is_the_engine_version_setup_installs() -> None:
    setup = (REPO / "scripts" / "setup.sh").read_text()
    [version] = re.findall(r"^VLLM_VERSION=(\S+)$", setup, re.M)
    image = (REPO / "containers" / "vllm.def").read_text()
    [base] = re.findall(r"^From:\s*(\S+)$", image, re.M)
    assert base == f"vllm/vllm-openai:v{version}"


def test_no_container_image_floats() -> None:
    for definition in (REPO / "containers").glob("*.def"):
        [base] = re.findall(r"^From:\s*(\S+)$", definition.read_text(), re.M)
        assert ":" in base and not base.endswith(":latest"), (definition.name, base)


def test_slurm_plugin_bound_has_the_partition_features_the_docs_use() -> None:
    """docs/cluster.md sends CPU and GPU jobs to separate partitions through the plugin's
    partition file (SNAKEMAKE_SLURM_PARTITIONS, 2.0.0); CPU jobs skip GPU partitions there
    from 2.7.0 on."""
    [req] = [r for r in direct_requirements() if r.name == "snakemake-executor-plugin-slurm"]
    assert req.specifier == SpecifierSet(">=2.7.0")
    assert "SNAKEMAKE_SLURM_PARTITIONS" in (REPO / "docs" / "cluster.md").read_text()


def test_lock_names_every_direct_dependency_at_an_allowed_version() -> None:
    pins = lock()
    for req in direct_requirements():
        name = canonicalize_name(req.name)
        assert name in pins, f"requirements.lock lacks {name}: run `make lock`"
        assert req.specifier.contains(Version(pins[name]), prereleases=True), (req, pins[name])
    assert canonicalize_name(project()["name"]) not in pins
    assert list(pins) == sorted(pins)
