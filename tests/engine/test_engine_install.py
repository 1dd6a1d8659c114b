"""The installed engine: tiny models build reproducibly, and vLLM's own parser accepts every
command line the project builds for the paper's presets, its judges and the tiny ones."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from playsuite.cli import main
from playsuite.inference.command import vllm_serve_argv
from playsuite.inference.engine import (
    TINY_ARCHITECTURES,
    build_tiny_model,
    check_serve_argv,
    engine_version,
)

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def test_engine_is_the_pinned_cpu_build(engine_vllm: str) -> None:
    assert engine_version(engine_vllm) == "0.32.0+cpu"


def test_tiny_models_are_reproducible(tmp_path: Path, tiny_model, engine_vllm: str) -> None:
    for arch in TINY_ARCHITECTURES:
        session = tiny_model(arch)  # the session's build, which the other engine tests serve
        again = build_tiny_model(arch, tmp_path / arch, vllm=engine_vllm)
        assert again["sha256"] == _digest(session), arch  # same bytes, whichever folder and run
        assert again["parameters"] < 1_000_000 and again["bytes"] < 5_000_000, again
        config = json.loads((tmp_path / arch / "config.json").read_text())
        assert config["model_type"] == arch
        assert not list(tmp_path.glob(".*.partial")), "a temporary folder was left"


def _digest(folder: Path) -> str:
    """The builder's content digest (relative path and bytes of every file, in path order)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def test_vllms_parser_accepts_every_preset_and_judge_and_rejects_what_it_does_not_know(
    registry, engine_vllm: str
) -> None:
    """One parser run (importing vLLM is most of a check's time) for both sides: every command
    line the registry builds is accepted; an unknown flag and malformed JSON are named."""
    served = [p for p in [*registry.presets.values(), *registry.judges.values()] if p.needs_server]
    assert {p.name for p in served} >= {"qwen3-vl-8b", "qwen3.5-9b", "tiny-qwen2-vl", "tiny-judge"}
    argvs = [vllm_serve_argv(p, "/tmp/check.sock", vllm=engine_vllm) for p in served]
    preset = registry.preset("qwen3-vl-8b")
    bad_flag = dataclasses.replace(
        preset, serve={**preset.serve, "extra_args": ["--guided-decoding-backend", "outlines"]}
    )
    argv = vllm_serve_argv(bad_flag, "/tmp/check.sock")
    bad_json = [*argv[:3], "--limit-mm-per-prompt", "{not json"]
    verdicts = check_serve_argv([*argvs, argv, bad_json], vllm=engine_vllm)
    assert dict(zip([p.name for p in served], verdicts, strict=False)) == {
        p.name: None for p in served
    }
    flag_verdict, json_verdict = verdicts[len(served) :]
    assert flag_verdict and "--guided-decoding-backend" in flag_verdict
    assert json_verdict and "--limit-mm-per-prompt" in json_verdict


def test_check_argv_command(capsys, engine_vllm: str) -> None:
    assert main(["engine", "--vllm", engine_vllm, "check-argv"]) == 0
    out = capsys.readouterr().out
    assert "vllm 0.32.0+cpu" in out and "tiny-judge: ok" in out and "REJECTED" not in out
