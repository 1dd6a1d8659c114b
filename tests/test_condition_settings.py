"""Conditions beyond history, rate and prompt: names, the settings they apply, what they record."""

from __future__ import annotations

from dataclasses import replace

import pytest

from playsuite.config import Condition, ConfigError, check_setting, condition_settings_schema
from playsuite.harness.job import apply_condition
from playsuite.planning.paths import WILDCARDS
from playsuite.registry import load_registry

HOT = "k0-hz0.33-base+sampling.temperature=0.7"


def test_old_names_are_unchanged() -> None:
    for name in ("k0-hz0.33-base", "k3-hz3-fewshot", "k10-hz0.5-strategy"):
        cond = Condition.parse(name)
        assert cond.name == name and cond.settings == ()
        assert cond.as_dict() == {
            "history_k": cond.history_k,
            "hz": cond.hz,
            "variant": cond.variant,
        }


def test_further_settings_are_spelt_once_in_path_order() -> None:
    base = Condition.parse("k0-hz0.33-base")
    hot = base.with_setting("sampling.temperature", 0.7)
    assert hot.name == HOT and Condition.parse(HOT) == hot
    both = hot.with_setting("play.steps", 50)
    assert both.name == "k0-hz0.33-base+play.steps=50+sampling.temperature=0.7"
    assert Condition.parse(both.name) == both
    assert both.get("play.steps") == 50 and both.get("sampling.top_p") is None
    assert both.overrides("sampling") == {"temperature": 0.7}
    assert both.with_setting("play.steps", None) == hot  # None: back to the run's own value
    assert base.with_setting("hz", 3).name == "k0-hz3-base"
    assert base.with_setting("variant", "fewshot").name == "k0-hz0.33-fewshot"
    assert base.with_setting("sampling.temperature", 1.0).name.endswith("temperature=1")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("k0-hz0.33-base+sampling.temperature=0.70", "write sampling.temperature=0.7"),
        ("k0-hz0.33-base+sampling.temperature=3", "cannot be applied"),
        ("k0-hz0.33-base+sampling.tempreature=1", "did you mean 'sampling.temperature'"),
        ("k0-hz0.33-base+sampling.top_p=1+play.steps=3", "path order"),
        ("k0-hz0.33-base+hz=3", "k-hz-variant part"),
        ("k0-hz0.33-base+sampling.temperature", "not of the form"),
    ],
)
def test_bad_names_are_refused(name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Condition.parse(name)


def test_the_condition_wildcard_takes_every_name_a_condition_spells() -> None:
    import re

    pattern = re.compile(WILDCARDS["condition"] + "$")
    for name in ("k0-hz0.33-base", HOT, "k3-hz3-base+play.steps=20+sampling.top_p=0.9"):
        assert pattern.match(name)
    assert not pattern.match("k0-hz0.33-base/../x")


def test_every_schema_setting_is_checked() -> None:
    props = condition_settings_schema()["properties"]
    assert {"history_k", "hz", "variant", "sampling.temperature", "play.steps"} <= set(props)
    with pytest.raises(ConfigError, match=r"is not of type .number."):
        check_setting("sampling.temperature", True)
    assert check_setting("sampling.max_tokens", 64) == 64


def test_a_condition_overrides_the_presets_sampling_and_the_budget() -> None:
    registry = load_registry()
    preset = registry.preset("random")
    preset = replace(preset, sampling={"temperature": 0.0, "max_tokens": 256})
    cond = Condition.parse("k0-hz0.33-base+play.steps=5+sampling.temperature=0.7")
    played, steps = apply_condition(preset, cond, 30)
    assert played.sampling == {"temperature": 0.7, "max_tokens": 256}
    assert preset.sampling["temperature"] == 0.0  # the registry's preset is left alone
    assert steps == 5
    same, budget = apply_condition(preset, Condition.parse("k0-hz0.33-base"), 30)
    assert same is preset and budget == 30


def test_a_preset_field_is_a_setting_spelt_true_or_false() -> None:
    """``preset.history_frames``: how many frames an observation carries (the current one, or
    every history step's too)."""
    cond = Condition.parse("k3-hz0.33-base").with_setting("preset.history_frames", True)
    assert cond.name == "k3-hz0.33-base+preset.history_frames=true"
    assert Condition.parse(cond.name) == cond
    with pytest.raises(ConfigError, match=r"write preset\.history_frames=true"):
        Condition.parse("k3-hz0.33-base+preset.history_frames=True")
    with pytest.raises(ConfigError, match="is not of type 'boolean'"):
        Condition.parse("k3-hz0.33-base+preset.history_frames=1")
    preset = load_registry().preset("qwen3-vl-8b")
    played, _ = apply_condition(preset, cond, None)
    assert played.history_frames is True and played.name == preset.name
    off, _ = apply_condition(preset, cond.with_setting("preset.history_frames", False), None)
    assert off.history_frames is False


def test_a_condition_may_set_the_native_games_clock_rate() -> None:
    """``play.native_clock_rate``: the runtime option as an axis (does a faster clock change the
    outcome?); a condition without it keeps the run's rate, and the schema bounds the value."""
    from playsuite.harness.job import condition_clock_rate

    fast = Condition.parse("k0-hz0.33-base+play.native_clock_rate=4")
    assert condition_clock_rate(fast, 1.0) == 4.0
    assert condition_clock_rate(Condition.parse("k0-hz0.33-base"), 2.0) == 2.0
    with pytest.raises(ConfigError, match="native_clock_rate"):
        Condition.parse("k0-hz0.33-base+play.native_clock_rate=0.5")
