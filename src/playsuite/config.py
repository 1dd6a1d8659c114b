"""Configuration: where config files live, loading them against their JSON Schemas, conditions.

The workflow and the command line read the same files (``config/models.yaml``, prompts, corpora);
this module is the one place that finds and validates them.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml


class ConfigError(ValueError):
    """A configuration file that is missing or does not match its schema."""


#: The package's own copy of ``config/``: in the source tree a link to the repository's
#: ``config/`` (so an editable install reads the files being edited), in a wheel the files
#: themselves (package data), so a plain ``pip install`` finds its presets, prompts and schemas.
PACKAGED_CONFIG = Path(__file__).resolve().parent / "_config"


def config_dir() -> Path:
    """The ``config/`` directory: ``$PLAYSUITE_CONFIG_DIR``, ``./config``, or the package's."""
    env = os.environ.get("PLAYSUITE_CONFIG_DIR")
    if env:
        return Path(env)
    local = Path.cwd() / "config"
    if (local / "models.yaml").exists():
        return local
    return PACKAGED_CONFIG


def installed_copy(directory: Path) -> bool:
    """Whether ``directory`` is the configuration shipped inside an installed wheel (not a
    checkout's ``config/``): relative paths then resolve against the working directory."""
    return directory.resolve() == PACKAGED_CONFIG.resolve() and not PACKAGED_CONFIG.is_symlink()


def workflow_path(path: str | os.PathLike[str]) -> Path:
    """A path as the workflow's configuration writes it (relative to the checkout, such as
    ``config/corpora/local.yaml``), resolved here; under an installed wheel, whose configuration
    sits in the package, paths below ``config/`` resolve into that copy."""
    path = Path(path)
    if path.is_absolute():
        return path
    directory = config_dir()
    if installed_copy(directory):
        if path.parts and path.parts[0] == "config":
            return directory.joinpath(*path.parts[1:])
        return Path.cwd() / path
    return directory.resolve().parent / path


def load_yaml(path: str | os.PathLike[str]) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return yaml.safe_load(fh)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None


@cache
def _schema(name: str) -> dict[str, Any]:
    path = config_dir() / "schemas" / f"{name}.schema.json"
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _spelling_hint(err: jsonschema.ValidationError) -> str:
    """`` (did you mean 'seed'?)`` for a misspelt key: an unknown key is refused rather than
    ignored, because an ignored one silently drops what it was meant to configure."""
    if err.validator != "additionalProperties" or not isinstance(err.instance, dict):
        return ""
    known = list((err.schema.get("properties") or {}) if isinstance(err.schema, dict) else [])
    hints = []
    for key in err.instance:
        if key in known:
            continue
        close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
        if close:
            hints.append(f"{key!r} -> {close[0]!r}")
    return f" (did you mean {', '.join(hints)}?)" if hints else ""


def validate(data: Any, schema_name: str, source: str = "config") -> Any:
    """Validate ``data`` against ``config/schemas/{schema_name}.schema.json`` with clear errors."""
    validator = jsonschema.Draft202012Validator(_schema(schema_name))
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        lines = []
        for err in errors[:10]:
            where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
            lines.append(f"  {where}: {err.message}{_spelling_hint(err)}")
        raise ConfigError(f"{source} does not match schema '{schema_name}':\n" + "\n".join(lines))
    return data


def drop_removed_corpora(config: dict[str, Any]) -> dict[str, Any]:
    """Remove the corpora (``corpora.X``, ``catalog.corpora.X``) a config file set to ``null``.

    Snakemake merges a ``--configfile`` into the Snakefile's own configuration: a key can be
    added or changed that way but never removed, so ``null`` is how a user's file says "not this
    shipped corpus". Edits ``config`` in place (Snakemake's object) and returns it; at least one
    play corpus must remain.
    """
    for section in (config, config.get("catalog") or {}):
        corpora = section.get("corpora")
        if isinstance(corpora, dict):
            for name in [name for name, spec in corpora.items() if spec is None]:
                del corpora[name]
    if isinstance(config.get("corpora"), dict) and not config["corpora"]:
        raise ConfigError("corpora: every corpus is set to null; the workflow needs one to play")
    return config


def load_validated(path: str | os.PathLike[str], schema_name: str) -> Any:
    return validate(load_yaml(path), schema_name, source=str(path))


def schema_default(schema_name: str, *keys: str) -> Any:
    """The ``default`` a schema gives the setting at ``keys`` (e.g. ``"play", "lock_wait_s"``).

    Command-line options that mirror a config setting take their default from here, so the
    schema stays the one place a default is written.
    """
    node: Any = _schema(schema_name)
    for key in keys:
        node = node["properties"][key]
    return node["default"]


def def_defaults(schema_name: str, definition: str) -> dict[str, Any]:
    """The ``default`` of each property of the schema's ``$defs/{definition}`` that has one (a
    block such as the model registry's ``endpoint``, which appears under many names)."""
    props = _schema(schema_name)["$defs"][definition]["properties"]
    return {key: copy.deepcopy(sub["default"]) for key, sub in props.items() if "default" in sub}


def game_option_default(name: str) -> Any:
    """The corpus schema's ``default`` for the row option ``options.{name}`` (a runtime setting
    every runtime reads, e.g. ``ready_settle_s``), so runtimes write no default of their own."""
    options = _schema("corpus")["$defs"]["game"]["properties"]["options"]
    return options["properties"][name]["default"]


def _filling_validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """A validator of ``schema`` that writes each missing property's ``default`` into the
    instance before descending into it (what Snakemake's ``validate`` does to the workflow
    config), so nested sections with ``"default": {}`` get their own defaults too."""
    base = jsonschema.Draft202012Validator
    check_properties = base.VALIDATORS["properties"]

    def properties(validator: Any, props: Any, instance: Any, node: Any) -> Any:
        if isinstance(instance, dict):
            for key, sub in props.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from check_properties(validator, props, instance, node)

    return jsonschema.validators.extend(base, {"properties": properties})(schema)


def with_defaults(data: Any, schema_name: str, *keys: str, source: str = "config") -> Any:
    """A copy of ``data`` (the setting at ``keys`` of the schema, e.g. ``"play"``; the whole
    document without keys) with the schema's defaults filled in, validated.

    For package code handed a configuration that did not pass through Snakemake's ``validate``
    (tests, the command line): the schema stays the only place a default is written.
    """
    root = _schema(schema_name)
    node: Any = root
    for key in keys:
        node = node["properties"][key]
    out = copy.deepcopy(data)
    if out is None:
        out = copy.deepcopy(node.get("default", {}))
    # the section with the root's $defs, so that its "#/$defs/..." references resolve
    validator = _filling_validator({**node, "$defs": root.get("$defs", {})})
    errors = sorted(validator.iter_errors(out), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join([*keys, *(str(p) for p in errors[0].absolute_path)]) or "(top level)"
        raise ConfigError(f"{source}: {where}: {errors[0].message}{_spelling_hint(errors[0])}")
    return out


CONDITION_RE = re.compile(
    r"^k(?P<k>\d+)-hz(?P<hz>\d+(?:\.\d+)?)-(?P<variant>[a-z][a-z0-9_]*)"
    r"(?P<settings>(?:\+[a-z_.]+=[A-Za-z0-9._-]+)*)$"
)
#: The settings a name's ``k{K}-hz{HZ}-{variant}`` part carries (fields of :class:`Condition`).
NAME_SETTINGS = ("history_k", "hz", "variant")


def condition_settings_schema() -> dict[str, Any]:
    """``config/schemas/condition.schema.json``: every setting a condition (and so an ablation's
    axis) may set, keyed by its dotted path."""
    return _schema("condition")


def format_setting(value: Any) -> str:
    """A setting's value as a condition name spells it: ``0.7``, ``3``, ``fewshot``, ``true``.
    One spelling per value, so a condition's name (its folder) is stable."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def check_setting(path: str, value: Any, source: str = "condition") -> Any:
    """``value`` for the setting ``path`` once checked against the condition schema: an
    unknown path (with a spelling hint) or a value out of its range is a :class:`ConfigError`."""
    props = condition_settings_schema()["properties"]
    if path not in props:
        close = difflib.get_close_matches(path, list(props), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"{source}: {path!r} is not a setting a condition can set{hint}; "
            f"known: {', '.join(props)}"
        )
    errors = list(jsonschema.Draft202012Validator(props[path]).iter_errors(value))
    if errors:
        raise ConfigError(f"{source}: {path}={value!r} cannot be applied: {errors[0].message}")
    return value


def _setting_default(path: str) -> Any:
    """The condition schema's default for ``path`` (only agent.* settings have one), or None."""
    return condition_settings_schema()["properties"].get(path, {}).get("default")


def _setting_from_text(path: str, text: str, name: str) -> Any:
    """The value ``text`` spells in the condition ``name``; it must be the canonical spelling."""
    value = yaml.safe_load(text)
    if isinstance(value, bool):  # spelt true or false (checked below)
        pass
    elif isinstance(value, int | float) and not isinstance(value, bool):
        kind = condition_settings_schema()["properties"].get(path, {}).get("type")
        value = int(value) if kind == "integer" and float(value).is_integer() else value
    else:
        value = text
    check_setting(path, value, source=f"condition {name!r}")
    if format_setting(value) != text:
        raise ConfigError(
            f"condition {name!r}: write {path}={format_setting(value)}, not {path}={text}"
        )
    return value


@dataclass(frozen=True)
class Condition:
    """What a run varies: history length, action rate, prompt variant, and any other setting of
    ``config/schemas/condition.schema.json``.

    Named ``k{K}-hz{HZ}-{variant}``, followed by ``+{path}={value}`` for each further setting
    in path order (``k0-hz0.33-base+sampling.temperature=0.7``): the name is the folder of the
    condition's episodes, so a name without further settings is the one it always was.
    """

    history_k: int
    hz: float
    variant: str
    #: further settings, (dotted path, value), sorted by path
    settings: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def parse(cls, name: str) -> Condition:
        match = CONDITION_RE.match(name)
        if not match:
            raise ConfigError(
                f"condition {name!r} is not of the form k{{K}}-hz{{HZ}}-{{variant}}"
                "[+{setting}={value}...], e.g. k3-hz0.33-base or "
                "k0-hz0.33-base+sampling.temperature=0.7"
            )
        hz = float(match["hz"])
        if hz <= 0:
            raise ConfigError(f"condition {name!r}: action rate must be positive")
        pairs = []
        for part in match["settings"].split("+")[1:]:
            path, text = part.split("=", 1)
            if path in NAME_SETTINGS:
                raise ConfigError(f"condition {name!r}: {path} belongs in the k-hz-variant part")
            value = _setting_from_text(path, text, name)
            if value == _setting_default(path):
                raise ConfigError(
                    f"condition {name!r}: leave out {path}={text}, its default (one name per "
                    "condition)"
                )
            pairs.append((path, value))
        paths = [p for p, _ in pairs]
        if paths != sorted(set(paths)):
            raise ConfigError(f"condition {name!r}: settings must be unique and in path order")
        return cls(int(match["k"]), hz, match["variant"], tuple(pairs))

    @property
    def name(self) -> str:
        extra = "".join(f"+{path}={format_setting(v)}" for path, v in self.settings)
        return f"k{self.history_k}-hz{self.hz:g}-{self.variant}{extra}"

    def get(self, path: str) -> Any:
        """The value this condition sets for ``path`` (``None``: it leaves it as the run has it)."""
        if path in NAME_SETTINGS:
            return getattr(self, path)
        return dict(self.settings).get(path)

    def setting(self, path: str) -> Any:
        """The value this condition plays with for ``path``: its own, else the condition
        schema's default (the agent.* settings have one), else ``None`` (the run's value)."""
        value = self.get(path)
        return _setting_default(path) if value is None else value

    def with_setting(self, path: str, value: Any) -> Condition:
        """This condition with ``path`` set to ``value`` (checked; ``None`` removes a further
        setting, so the run's own value applies)."""
        if path in NAME_SETTINGS:
            check_setting(path, value)
            fields = {"history_k": self.history_k, "hz": self.hz, "variant": self.variant}
            fields[path] = value
            return Condition.parse(
                Condition(
                    int(fields["history_k"]),
                    float(fields["hz"]),
                    str(fields["variant"]),
                    self.settings,
                ).name
            )
        rest = {p: v for p, v in self.settings if p != path}
        if value is not None and value == _setting_default(path):
            value = None  # a default is spelt by leaving it out: one name per condition
        if value is not None:
            rest[path] = check_setting(path, value)
        return Condition(self.history_k, self.hz, self.variant, tuple(sorted(rest.items())))

    def as_dict(self) -> dict[str, Any]:
        """Every setting the condition sets, by dotted path (what ``meta.json`` records)."""
        return {
            "history_k": self.history_k,
            "hz": self.hz,
            "variant": self.variant,
            **dict(self.settings),
        }

    def overrides(self, section: str) -> dict[str, Any]:
        """The further settings under ``section`` (``"sampling"`` -> ``{"temperature": 0.7}``)."""
        prefix = section + "."
        return {p[len(prefix) :]: v for p, v in self.settings if p.startswith(prefix)}

    @property
    def step_seconds(self) -> float:
        """Game time per agent step.

        Rates written as truncated fractions (0.33 Hz for 1/3 Hz) mean whole-second steps: the
        paper's 0.33 Hz is a 3 s step, not 3.03 s.
        """
        period = 1.0 / self.hz
        whole = round(period)
        if whole >= 1 and abs(period - whole) / whole < 0.02:
            return float(whole)
        return period
