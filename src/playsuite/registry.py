"""The model registry (``config/models.yaml``): presets and judges with defaults merged in.

Everything that needs to know about a model (the agent, the vLLM command line, Slurm resources,
the cost figure) asks this module, so a preset is described in exactly one place.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from playsuite.config import ConfigError, config_dir, load_validated


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


@dataclass(frozen=True)
class Preset:
    """One model configuration a run can name (``--agent NAME``)."""

    name: str
    kind: str  # "vllm" | "baseline"
    family: str
    parser: str
    template: str
    hf_id: str | None
    params_b: float | None
    sampling: dict[str, Any]
    serve: dict[str, Any]
    resources: dict[str, Any]
    parser_options: dict[str, Any]
    history_frames: bool
    tiny: str | None = None  # architecture of a random-weight model built locally into hf_id
    extra: bool = False  # not one of the paper's evaluated models

    @property
    def needs_server(self) -> bool:
        return self.kind == "vllm"

    @property
    def gpus(self) -> int:
        return int(self.serve.get("gpus", 1)) if self.needs_server else 0


@dataclass(frozen=True)
class JudgePreset:
    name: str
    kind: str  # "vllm" | "local"
    hf_id: str | None
    default: bool
    sampling: dict[str, Any]
    serve: dict[str, Any]
    resources: dict[str, Any]
    tiny: str | None = None  # as Preset.tiny

    @property
    def needs_server(self) -> bool:
        return self.kind == "vllm"

    @property
    def gpus(self) -> int:
        return int(self.serve.get("gpus", 1)) if self.needs_server else 0


@dataclass(frozen=True)
class Registry:
    presets: dict[str, Preset]
    judges: dict[str, JudgePreset]

    def preset(self, name: str) -> Preset:
        try:
            return self.presets[name]
        except KeyError:
            raise ConfigError(
                f"unknown preset {name!r}; known: {', '.join(sorted(self.presets))}"
            ) from None

    def judge(self, name: str) -> JudgePreset:
        try:
            return self.judges[name]
        except KeyError:
            raise ConfigError(
                f"unknown judge {name!r}; known: {', '.join(sorted(self.judges))}"
            ) from None

    @property
    def default_judge(self) -> str:
        return next((j.name for j in self.judges.values() if j.default), next(iter(self.judges)))


def parse_registry(data: dict[str, Any]) -> Registry:
    defaults = data.get("defaults", {})
    presets = {}
    for name, raw in data["presets"].items():
        merged = _merge({k: defaults.get(k, {}) for k in ("sampling", "serve", "resources")}, raw)
        presets[name] = Preset(
            name=name,
            kind=merged["kind"],
            family=merged["family"],
            parser=merged["parser"],
            template=merged["template"],
            hf_id=merged.get("hf_id"),
            params_b=merged.get("params_b"),
            sampling=merged["sampling"],
            serve=merged["serve"] if merged["kind"] == "vllm" else {},
            resources=merged["resources"],
            parser_options=merged.get("parser_options", {}),
            history_frames=bool(merged.get("history_frames", False)),
            tiny=merged.get("tiny"),
            extra=bool(merged.get("extra", False)),
        )
    judges = {}
    for name, raw in data["judges"].items():
        merged = _merge({k: defaults.get(k, {}) for k in ("serve", "resources")}, raw)
        judges[name] = JudgePreset(
            name=name,
            kind=merged["kind"],
            hf_id=merged.get("hf_id"),
            default=bool(merged.get("default", False)),
            sampling=merged.get("sampling", {}),
            serve=merged["serve"] if merged["kind"] == "vllm" else {},
            resources=merged["resources"],
            tiny=merged.get("tiny"),
        )
    return Registry(presets, judges)


@cache
def load_registry(path: str | Path | None = None) -> Registry:
    """Load and validate ``config/models.yaml`` (or ``path``)."""
    path = Path(path) if path else config_dir() / "models.yaml"
    return parse_registry(load_validated(path, "models"))
