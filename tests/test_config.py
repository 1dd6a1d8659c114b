import pytest

from playsuite.config import Condition, ConfigError, config_dir, load_yaml, validate
from playsuite.registry import load_registry, parse_registry

PAPER_PARSERS = {"standard", "qwen3", "computer_use", "uitars", "opencua", "osatlas", "showui"}


def test_registry_holds_the_fourteen_presets() -> None:
    registry = load_registry()
    evaluated = [p for p in registry.presets.values() if p.kind == "vllm" and not p.extra]
    assert len(evaluated) == 14
    assert {p.parser for p in evaluated} == PAPER_PARSERS
    assert {p.family for p in evaluated} == {"VLM", "CUA", "VLA"}
    for preset in evaluated:
        assert preset.sampling["temperature"] == 0.5
        assert preset.sampling["max_tokens"] == 512
        assert preset.hf_id and "/" in preset.hf_id
    assert registry.preset("qwen3-omni-30b-a3b").gpus == 2
    assert registry.preset("random").gpus == 0
    cua_pairs = {(p.parser, p.template) for p in evaluated if p.family == "CUA"}
    assert ("uitars", "uitars") in cua_pairs and ("computer_use", "computer_use") in cua_pairs


def test_registry_judges() -> None:
    registry = load_registry()
    assert registry.default_judge == "qwen3.5-9b"
    for name in ("qwen3.5-9b", "qwen3.5-27b", "gemma-4-31b-it", "molmo2-8b"):
        judge = registry.judge(name)
        assert judge.sampling["temperature"] == 0 and judge.sampling["seed"] == 41
        assert judge.serve["max_model_len"] == 65536
    with pytest.raises(ConfigError, match="unknown judge"):
        registry.judge("oracle")


def test_registry_schema_rejects_unknown_parser() -> None:
    bad = {
        "presets": {
            "x": {
                "kind": "baseline",
                "family": "baseline",
                "parser": "guess",
                "template": "standard",
            }
        },
        "judges": {"frame": {"kind": "local"}},
    }
    with pytest.raises(ConfigError, match="parser"):
        validate(bad, "models")
    missing_id = {
        "presets": {
            "x": {"kind": "vllm", "family": "VLM", "parser": "standard", "template": "standard"}
        },
        "judges": {"frame": {"kind": "local"}},
    }
    with pytest.raises(ConfigError, match="hf_id"):
        validate(missing_id, "models")
    parse_registry(
        {
            "presets": {
                "x": {
                    "kind": "baseline",
                    "family": "baseline",
                    "parser": "standard",
                    "template": "standard",
                }
            },
            "judges": {"frame": {"kind": "local"}},
        }
    )


@pytest.mark.parametrize(
    ("name", "k", "hz", "variant", "step"),
    [
        ("k0-hz0.33-base", 0, 0.33, "base", 3.0),
        ("k3-hz0.33-strategy", 3, 0.33, "strategy", 3.0),
        ("k10-hz3-base", 10, 3.0, "base", 1 / 3),
        ("k3-hz0.5-fewshot", 3, 0.5, "fewshot", 2.0),
    ],
)
def test_conditions(name: str, k: int, hz: float, variant: str, step: float) -> None:
    cond = Condition.parse(name)
    assert (cond.history_k, cond.hz, cond.variant) == (k, hz, variant)
    assert cond.step_seconds == pytest.approx(step)
    assert Condition.parse(cond.name) == cond


@pytest.mark.parametrize("bad", ["k3", "k-1-hz1-base", "k3-hz0-base", "k3-hz1-Base"])
def test_bad_conditions(bad: str) -> None:
    with pytest.raises(ConfigError):
        Condition.parse(bad)


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        ("sede", "'sede' -> 'seed'"),
        ("catalogue", "'catalogue' -> 'catalog'"),
        ("analysys", "'analysys' -> 'analysis'"),
    ],
)
def test_a_misspelt_top_level_key_is_refused(key: str, hint: str) -> None:
    """An unknown key used to be accepted and whatever it meant to set silently dropped (a
    misspelt ``catalog:`` removed the catalog stage)."""
    config = load_yaml(config_dir() / "config.yaml")
    config[key] = config.pop(key.replace("sede", "seed"), {}) if key == "sede" else {}
    with pytest.raises(ConfigError, match="Additional properties are not allowed") as err:
        validate(config, "config")
    assert hint in str(err.value)


def test_a_misspelt_corpus_key_is_refused() -> None:
    config = load_yaml(config_dir() / "config.yaml")
    config["corpora"]["local"]["tabel"] = "x.yaml"
    with pytest.raises(ConfigError, match=r"corpora/local: .*'tabel' -> 'table'"):
        validate(config, "config")
