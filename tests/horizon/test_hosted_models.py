"""A hosted preset (kind ``openai``) as the annotator or a question answerer: planned without a
GPU or a server, shown images, asked at its endpoint (the real path: tests/engine)."""

from __future__ import annotations

import pytest

from playsuite.config import ConfigError
from playsuite.horizon.annotate import horizon_settings
from playsuite.horizon.run import ServeOptions, entry_media_plan, registry_entry, served_client
from playsuite.planning.horizon_jobs import horizon_plan
from playsuite.registry import load_registry

HOSTED = "gpt-4.1-mini"


def test_a_hosted_preset_is_planned_without_a_gpu_or_a_model_to_build() -> None:
    registry = load_registry()
    section = {"annotator": HOSTED, "presets": [HOSTED], "runs": ["local/random/k0-hz0.33-base"]}
    plan = horizon_plan({"horizon": section}, registry)
    assert plan is not None and plan.annotator == HOSTED
    assert plan.resource(HOSTED, "gpu", 1) == 0 and plan.model(HOSTED) == []
    with pytest.raises(ConfigError, match="'random' is not a model"):
        horizon_plan({"horizon": {**section, "presets": ["random"]}}, registry)


def test_a_hosted_preset_is_shown_images_and_needs_its_key(monkeypatch) -> None:
    entry = registry_entry(HOSTED)
    settings = horizon_settings({"media": "auto"})
    plan = entry_media_plan(entry, settings)
    assert plan.kind == "image" and plan.most == int(settings["frames"])
    with pytest.raises(ConfigError, match="'random' is not a model"):
        registry_entry("random")
    monkeypatch.delenv(entry.endpoint.api_key_env, raising=False)
    with (
        pytest.raises(ConfigError, match=entry.endpoint.api_key_env),
        served_client(entry, ServeOptions()),
    ):
        pass
