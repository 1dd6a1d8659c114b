import pytest

from playsuite.config import (
    Condition,
    ConfigError,
    config_dir,
    drop_removed_corpora,
    load_yaml,
    validate,
)
from playsuite.registry import load_registry, parse_registry

PAPER_PARSERS = {"standard", "qwen3", "computer_use", "uitars", "opencua", "osatlas", "showui"}


#: Tables 7 and 8: preset -> (Hugging Face id, family, parameters (total, active or effective),
#: parser, prompt template).
PAPER_MODELS = {
    "qwen3-omni-30b-a3b": ("Qwen/Qwen3-Omni-30B-A3B-Instruct", "VLM", (30, 3), "qwen3", "standard"),
    "qwen2.5-vl-7b": ("Qwen/Qwen2.5-VL-7B-Instruct", "VLM", (7, None), "standard", "standard"),
    "gemma-4-26b-a4b-it": ("google/gemma-4-26B-A4B-it", "VLM", (26, 4), "qwen3", "standard"),
    "qwen3-vl-8b": ("Qwen/Qwen3-VL-8B-Instruct", "VLM", (8, None), "qwen3", "standard"),
    "qwen2.5-omni-7b": ("Qwen/Qwen2.5-Omni-7B", "VLM", (7, None), "standard", "standard"),
    "gemma-4-e4b-it": ("google/gemma-4-E4B-it", "VLM", (8, 4.5), "qwen3", "standard"),
    "internvl2.5-8b": ("OpenGVLab/InternVL2_5-8B", "VLM", (8, None), "qwen3", "standard"),
    "gemma-3-12b-it": ("google/gemma-3-12b-it", "VLM", (12, None), "standard", "standard"),
    "ui-tars-1.5-7b": ("ByteDance-Seed/UI-TARS-1.5-7B", "CUA", (7, None), "uitars", "uitars"),
    "evocua-8b": ("meituan/EvoCUA-8B-20260105", "CUA", (8, None), "computer_use", "computer_use"),
    "opencua-7b": ("xlangai/OpenCUA-7B", "CUA", (7, None), "opencua", "opencua"),
    "gui-owl-1.5-8b": (
        "mPLUG/GUI-Owl-1.5-8B-Instruct",
        "CUA",
        (8, None),
        "computer_use",
        "computer_use",
    ),
    "os-atlas-pro-7b": ("OS-Copilot/OS-Atlas-Pro-7B", "VLA", (7, None), "osatlas", "osatlas"),
    "showui-2b": ("showlab/ShowUI-2B", "VLA", (2, None), "showui", "showui"),
}


def test_registry_holds_the_papers_fourteen_presets() -> None:
    registry = load_registry()
    evaluated = {n: p for n, p in registry.presets.items() if p.kind == "vllm" and not p.extra}
    assert set(evaluated) == set(PAPER_MODELS)
    for name, (hf_id, family, (total, smaller), parser, template) in PAPER_MODELS.items():
        preset = evaluated[name]
        assert (preset.hf_id, preset.family, preset.parser, preset.template) == (
            hf_id,
            family,
            parser,
            template,
        ), name
        assert preset.params_b == total, name
        assert smaller == (preset.params_active_b or preset.params_effective_b), name
        assert preset.sampling["temperature"] == 0.5
        assert preset.sampling["max_tokens"] == 512
    assert {p.parser for p in evaluated.values()} == PAPER_PARSERS
    assert registry.preset("qwen3-omni-30b-a3b").gpus == 2
    assert registry.preset("random").gpus == 0
    assert "--trust-remote-code" in registry.preset("internvl2.5-8b").serve["extra_args"]


def test_paper_config_runs_exactly_the_fourteen() -> None:
    config = load_yaml(config_dir() / "paper.yaml")
    assert config["presets"] == list(PAPER_MODELS)  # Table 7's order
    assert config["judges"] == ["qwen3.5-9b"]


def test_the_genre_classifier_is_a_text_model_without_image_limits() -> None:
    registry = load_registry()
    model = registry.classifier("qwen2.5-14b-instruct")
    assert model.hf_id == "Qwen/Qwen2.5-14B-Instruct" and model.needs_server
    assert "limit_mm_per_prompt" not in model.serve and model.serve["gpus"] == 1
    with pytest.raises(ConfigError, match="unknown classifier"):
        registry.classifier("gpt")


def test_registry_judges() -> None:
    registry = load_registry()
    assert registry.default_judge == "qwen3.5-9b"
    table10 = {
        "qwen3.5-9b": "Qwen/Qwen3.5-9B",
        "qwen3.5-27b": "Qwen/Qwen3.5-27B",
        "gemma-4-31b-it": "google/gemma-4-31B-it",
        "molmo2-8b": "allenai/Molmo2-8B",
    }
    for name, hf_id in table10.items():
        judge = registry.judge(name)
        assert judge.hf_id == hf_id
        assert judge.sampling == {"temperature": 0.0, "max_tokens": 16384, "seed": 41}
        assert judge.serve["max_model_len"] == 65536
        assert judge.serve["max_num_seqs"] == 8
        assert judge.serve["max_num_batched_tokens"] == 32768
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


def test_a_corpus_set_to_null_is_removed() -> None:
    """A --configfile is merged into config.yaml and cannot delete a key: null is how it says
    "not this shipped corpus" (play corpora, catalog corpora, a catalog corpus's launch gate)."""
    config = load_yaml(config_dir() / "config.yaml")
    config["corpora"] |= {"local": None, "mine": {"table": "my_games.tsv"}}
    config["catalog"]["corpora"] |= {"debian": None, "pypi": None}
    config["catalog"]["corpora"]["sample"]["launch_results"] = None
    validate(config, "config")
    drop_removed_corpora(config)
    assert list(config["corpora"]) == ["mine"] and list(config["catalog"]["corpora"]) == ["sample"]
    assert config["catalog"]["corpora"]["sample"]["launch_results"] is None
    config["corpora"]["mine"] = None
    with pytest.raises(ConfigError, match="every corpus is set to null"):
        drop_removed_corpora(config)


def test_genre_classifier_endpoints() -> None:
    """The paper's two classifiers: a served model for PyWeek, a hosted API for itch.io; the API
    key is named by its environment variable, never written into the file."""
    config = load_yaml(config_dir() / "config.yaml")
    config["catalog"]["genre_llm"] = {
        "pyweek": {"uds": "/tmp/genre.sock", "model": "qwen2.5-14b-instruct"},
        "itch": {
            "base_url": "https://api.openai.com/v1",
            "api_key_env": "OPENAI_API_KEY",
            "model": "gpt-5.4-nano-2026-03-17",
            "extra_body": {"max_completion_tokens": 4096},
        },
    }
    validate(config, "config")
    for bad in (
        {"base_url": "https://api.openai.com/v1", "model": "m"},  # no key variable
        {"uds": "/tmp/s.sock", "base_url": "https://x/v1", "api_key_env": "K", "model": "m"},
        {"uds": "/tmp/s.sock"},  # no model
        {"uds": "/tmp/s.sock", "model": "m", "api_key": "sk-secret"},  # a key in the file
    ):
        config["catalog"]["genre_llm"] = {"itch": bad}
        with pytest.raises(ConfigError):
            validate(config, "config")
