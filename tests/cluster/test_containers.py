"""Apptainer definition files (containers/*.def), checked as far as a machine without Apptainer
allows: header, known sections, files that exist in the build context, shell syntax of scripts."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEFS = sorted((REPO / "containers").glob("*.def"))
SECTIONS = {
    "%setup", "%files", "%environment", "%post", "%runscript", "%startscript", "%test",
    "%labels", "%help", "%arguments",
}  # fmt: skip
SCRIPTS = {"%setup", "%environment", "%post", "%runscript", "%startscript", "%test"}


def sections(text: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    header: dict[str, str] = {}
    body: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if re.match(r"^%\w+", line):
            current = line.split()[0]
            assert current not in body, f"section {current} twice"
            body[current] = []
        elif current is None:
            if line.strip() and not line.lstrip().startswith("#"):
                key, _, value = line.partition(":")
                header[key.strip()] = value.strip()
        else:
            body[current].append(line)
    return header, body


@pytest.mark.parametrize("path", DEFS, ids=lambda p: p.name)
def test_definition_file_is_well_formed(path: Path) -> None:
    header, body = sections(path.read_text())
    assert header.get("Bootstrap") == "docker" and header.get("From"), header
    assert set(body) <= SECTIONS, set(body) - SECTIONS
    assert "%test" in body, "every image checks itself after the build"
    for name in SCRIPTS & set(body):
        script = "\n".join(body[name]) + "\n"
        check = subprocess.run(["sh", "-n"], input=script, capture_output=True, text=True)
        assert check.returncode == 0, f"{name}: {check.stderr}"
    for line in body.get("%files", []):
        if line.strip() and not line.lstrip().startswith("#"):
            source = line.split()[0]
            assert (REPO / source).exists(), f"%files source {source} is not in the repository"


def test_both_images_exist() -> None:
    assert {p.stem for p in DEFS} >= {"game-sandbox", "vllm"}
