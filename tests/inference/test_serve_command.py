"""`vllm serve` argv built from the real model registry."""

from __future__ import annotations

import dataclasses
import json

import pytest

from playsuite.inference import fill_server_argv, vllm_serve_argv
from playsuite.registry import load_registry
from playsuite.testing.standin import standin_argv_for_preset


def _flag(argv: list[str], name: str) -> str:
    assert argv.count(name) == 1, f"{name} appears {argv.count(name)} times in {argv}"
    return argv[argv.index(name) + 1]


def test_agent_preset_argv():
    preset = load_registry().preset("qwen3-vl-8b")
    argv = vllm_serve_argv(preset, "/tmp/m.sock")
    assert argv[:3] == ["vllm", "serve", "Qwen/Qwen3-VL-8B-Instruct"]
    assert _flag(argv, "--uds") == "/tmp/m.sock"
    assert _flag(argv, "--served-model-name") == "qwen3-vl-8b"
    assert _flag(argv, "--tensor-parallel-size") == "1"
    assert _flag(argv, "--max-model-len") == str(preset.serve["max_model_len"])
    assert _flag(argv, "--gpu-memory-utilization") == "0.9"
    assert json.loads(_flag(argv, "--limit-mm-per-prompt")) == {"image": 4}
    assert _flag(argv, "--seed") == str(preset.sampling["seed"])
    assert "--media-io-kwargs" not in argv  # images only: no video loader settings
    assert "--port" not in argv and "--host" not in argv


def test_multi_gpu_and_extra_args():
    registry = load_registry()
    omni = vllm_serve_argv(registry.preset("qwen3-omni-30b-a3b"), "/tmp/m.sock")
    assert _flag(omni, "--tensor-parallel-size") == "2"
    internvl = vllm_serve_argv(
        registry.preset("internvl3.5-8b"), "/tmp/m.sock", extra=["--enforce-eager"]
    )
    assert internvl[-2:] == ["--trust-remote-code", "--enforce-eager"]


def test_judge_argv_serves_video_at_the_sent_frame_rate():
    judge = load_registry().judge("qwen3.5-9b")
    argv = vllm_serve_argv(
        judge, "/tmp/j.sock", model="/models/qwen3.5-9b", allowed_local_media_path="/data"
    )
    assert argv[2] == "/models/qwen3.5-9b"
    assert _flag(argv, "--served-model-name") == "qwen3.5-9b"
    limits = json.loads(_flag(argv, "--limit-mm-per-prompt"))
    assert limits == judge.serve["limit_mm_per_prompt"] and limits["video"] == 1
    assert json.loads(_flag(argv, "--media-io-kwargs")) == {"video": {"num_frames": -1}}
    assert _flag(argv, "--max-num-seqs") == "8"
    assert _flag(argv, "--max-num-batched-tokens") == "32768"
    assert _flag(argv, "--seed") == "41"
    assert _flag(argv, "--allowed-local-media-path") == "/data"
    assert json.loads(_flag(argv, "--default-chat-template-kwargs")) == {"enable_thinking": False}


def test_presets_without_a_server_are_refused():
    registry = load_registry()
    with pytest.raises(ValueError, match="needs no model server"):
        vllm_serve_argv(registry.preset("random"), "/tmp/m.sock")
    with pytest.raises(ValueError, match="needs no model server"):
        vllm_serve_argv(registry.judge("frame"), "/tmp/m.sock")


def test_every_vllm_preset_builds():
    registry = load_registry()
    for preset in [*registry.presets.values(), *registry.judges.values()]:
        if preset.needs_server:
            argv = vllm_serve_argv(preset, "/tmp/m.sock")
            assert argv[2] == preset.hf_id


def test_standin_for_preset_uses_its_name_and_limits():
    judge = load_registry().judge("qwen3.5-9b")
    argv = standin_argv_for_preset(judge, "/tmp/j.sock")
    assert _flag(argv, "--model") == "qwen3.5-9b"
    assert json.loads(_flag(argv, "--limit-mm-per-prompt")) == judge.serve["limit_mm_per_prompt"]


def test_server_argv_placeholders_are_filled_in_steps() -> None:
    argv = ["serve", "--uds", "{uds}", "--model", "{preset}", "--log", "/l/{preset}.log"]
    planned = fill_server_argv(argv, preset="qwen3-vl-8b")  # the workflow knows the preset
    assert planned == [
        "serve",
        "--uds",
        "{uds}",
        "--model",
        "qwen3-vl-8b",
        "--log",
        "/l/qwen3-vl-8b.log",
    ]
    assert fill_server_argv(planned, uds="/tmp/m.sock")[2] == "/tmp/m.sock"  # the job its socket
    assert argv[2] == "{uds}"  # the configured argv is not changed


def test_a_pinned_revision_goes_with_the_hub_id_only():
    """models.yaml's ``revision`` pins the weights vLLM downloads; a local copy replacing the hub
    id is what it is, so the revision is not passed with it."""
    preset = dataclasses.replace(load_registry().preset("qwen3-vl-8b"), revision="0123abcd")
    argv = vllm_serve_argv(preset, "/tmp/m.sock")
    assert argv[2] == "Qwen/Qwen3-VL-8B-Instruct" and _flag(argv, "--revision") == "0123abcd"
    local = vllm_serve_argv(preset, "/tmp/m.sock", model="/models/qwen3-vl-8b")
    assert "--revision" not in local
    unpinned = vllm_serve_argv(load_registry().preset("qwen3-vl-8b"), "/tmp/m.sock")
    assert "--revision" not in unpinned


def test_models_yaml_may_pin_a_revision_per_preset_judge_and_classifier():
    from playsuite.config import ConfigError, config_dir, load_yaml, validate
    from playsuite.registry import parse_registry

    data = load_yaml(config_dir() / "models.yaml")
    data["presets"]["qwen3-vl-8b"]["revision"] = "0123abcd"
    data["judges"]["qwen3.5-9b"]["revision"] = "v1.0"
    data["classifiers"]["qwen2.5-14b-instruct"]["revision"] = "main"
    registry = parse_registry(validate(data, "models"))
    assert registry.preset("qwen3-vl-8b").revision == "0123abcd"
    assert registry.judge("qwen3.5-9b").revision == "v1.0"
    assert registry.preset("qwen2.5-vl-7b").revision is None
    assert registry.classifier("qwen2.5-14b-instruct").revision == "main"
    data["presets"]["qwen3-vl-8b"]["revision"] = "two words"
    with pytest.raises(ConfigError, match="revision"):
        validate(data, "models")
