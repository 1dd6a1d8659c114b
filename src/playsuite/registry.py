"""The model registry (``config/models.yaml``): presets and judges with defaults merged in.

Everything that needs to know about a model (the agent, the vLLM command line, Slurm resources,
the cost figure) asks this module, so a preset is described in exactly one place.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from playsuite.config import ConfigError, config_dir, def_defaults, load_validated


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible HTTP endpoint a preset of kind ``openai`` plays through.

    The key is never held here: ``api_key_env`` names the environment variable that has it, read
    by :meth:`api_key` when a client is made, so no configuration file or record carries it.
    ``max_concurrency`` and ``requests_per_minute`` bound a whole play job (all its workers).
    """

    base_url: str
    api_key_env: str
    model: str
    max_concurrency: int
    requests_per_minute: float | None
    timeout_s: float
    attempts: int
    backoff_s: float
    backoff_max_s: float

    @classmethod
    def from_config(cls, raw: dict[str, Any]) -> Endpoint:
        """The block of ``config/models.yaml`` with the schema's defaults for what it leaves out."""
        merged = {**def_defaults("models", "endpoint"), **raw}
        rpm = merged["requests_per_minute"]
        return cls(
            base_url=str(merged["base_url"]).rstrip("/"),
            api_key_env=str(merged["api_key_env"]),
            model=str(merged["model"]),
            max_concurrency=int(merged["max_concurrency"]),
            requests_per_minute=None if rpm is None else float(rpm),
            timeout_s=float(merged["timeout_s"]),
            attempts=int(merged["attempts"]),
            backoff_s=float(merged["backoff_s"]),
            backoff_max_s=float(merged["backoff_max_s"]),
        )

    def api_key(self, preset: str) -> str:
        """The key from the environment; :class:`ConfigError` naming the variable when unset."""
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise ConfigError(
                f"preset {preset!r} ({self.base_url}): the environment variable "
                f"{self.api_key_env} holding its API key is not set"
            )
        return key


@dataclass(frozen=True)
class Preset:
    """One model configuration a run can name (``--agent NAME``)."""

    name: str
    kind: str  # "vllm" | "openai" | "baseline"
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
    params_active_b: float | None = None  # mixture of experts: parameters active per token
    params_effective_b: float | None = None  # per-layer embeddings (Gemma E*): effective size
    revision: str | None = None  # Hugging Face revision of hf_id (vllm serve --revision)
    image_scale: float = 1.0  # frames are resized by this factor before the model sees them
    endpoint: Endpoint | None = None  # kind "openai": the HTTP endpoint it plays through

    @property
    def needs_server(self) -> bool:
        """A vLLM server is started for the preset's jobs (kind ``vllm``)."""
        return self.kind == "vllm"

    @property
    def hosted(self) -> bool:
        """The preset plays through an HTTP endpoint somebody else serves (kind ``openai``)."""
        return self.kind == "openai"

    @property
    def uses_model(self) -> bool:
        """A model answers the prompts (served here or hosted); False for a baseline."""
        return self.needs_server or self.hosted

    @property
    def gpus(self) -> int:
        return int(self.serve.get("gpus", 1)) if self.needs_server else 0


@dataclass(frozen=True)
class JudgePreset:
    """A served model without an agent interface: a judge, or a catalog classifier."""

    name: str
    kind: str  # "vllm" | "local"
    hf_id: str | None
    default: bool
    sampling: dict[str, Any]
    serve: dict[str, Any]
    resources: dict[str, Any]
    tiny: str | None = None  # as Preset.tiny
    revision: str | None = None  # as Preset.revision

    @property
    def needs_server(self) -> bool:
        return self.kind == "vllm"

    @property
    def hosted(self) -> bool:
        """Judges and classifiers are never hosted presets (no kind ``openai``); as Preset's."""
        return False

    @property
    def uses_model(self) -> bool:
        """A model answers (kind ``vllm``); False for the CPU judges (kind ``local``)."""
        return self.needs_server

    @property
    def gpus(self) -> int:
        return int(self.serve.get("gpus", 1)) if self.needs_server else 0


@dataclass(frozen=True)
class Registry:
    presets: dict[str, Preset]
    judges: dict[str, JudgePreset]
    classifiers: dict[str, JudgePreset] = field(default_factory=dict)

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

    def classifier(self, name: str) -> JudgePreset:
        try:
            return self.classifiers[name]
        except KeyError:
            known = ", ".join(sorted(self.classifiers)) or "none"
            raise ConfigError(f"unknown classifier {name!r}; known: {known}") from None

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
            # The schema fills 1 on load; a registry built from a bare mapping sends frames as is.
            image_scale=float(merged.get("image_scale") or 1),
            tiny=merged.get("tiny"),
            extra=bool(merged.get("extra", False)),
            params_active_b=merged.get("params_active_b"),
            params_effective_b=merged.get("params_effective_b"),
            revision=merged.get("revision"),
            endpoint=Endpoint.from_config(merged["endpoint"]) if "endpoint" in merged else None,
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
            revision=merged.get("revision"),
        )
    # A text-only classifier takes no image limit (it means nothing for a model without a
    # multimodal processor, and some vLLM versions refuse the flag for one).
    text_serve = {k: v for k, v in defaults.get("serve", {}).items() if k != "limit_mm_per_prompt"}
    classifiers = {}
    for name, raw in data.get("classifiers", {}).items():
        merged = _merge({"serve": text_serve, "resources": defaults.get("resources", {})}, raw)
        classifiers[name] = JudgePreset(
            name=name,
            kind=merged["kind"],
            hf_id=merged["hf_id"],
            default=False,
            sampling=merged.get("sampling", {}),
            serve=merged["serve"],
            resources=merged["resources"],
            revision=merged.get("revision"),
        )
    return Registry(presets, judges, classifiers)


@cache
def load_registry(path: str | Path | None = None) -> Registry:
    """Load and validate ``config/models.yaml`` (or ``path``)."""
    path = Path(path) if path else config_dir() / "models.yaml"
    return parse_registry(load_validated(path, "models"))
