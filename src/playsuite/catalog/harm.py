"""Harm-category screen of the curated games (paper Table 4).

The paper reports how many benchmark games could put an agent in front of situations from a list
of risk categories. It found them in two steps, and so does this module: cheap matching of each
game's itch.io tags and description against per-category terms proposes candidates, then a model
judges each (game, category) candidate against the category's definition. The categories, their
definitions and match terms live in a configuration file (``config/catalog/harm_categories.yaml``)
so that the screen can be re-run with other wording without touching code.

The screen annotates, it does not exclude: a game in a harm category stays in the benchmark.
A validation that fails (server error, an answer that is not the asked-for JSON) is recorded as
``failed`` with its error and counted apart, never silently dropped or treated as a match.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd
import yaml

from playsuite.catalog.ingest import RawGame, slug
from playsuite.files import write_records_tsv
from playsuite.inference.client import InferenceClient, InferenceError
from playsuite.inference.messages import system_message, user_message

#: characters of description sent to the validating model
FIELD_CHARS = 1500
#: statuses of one (game, category) candidate
CONFIRMED, REJECTED, FAILED, UNVALIDATED = "confirmed", "rejected", "failed", "unvalidated"
CANDIDATE_COLUMNS = ("id", "source", "title", "category", "evidence", "status", "reasoning")


@dataclass(frozen=True)
class HarmCategory:
    name: str
    definition: str
    tags: tuple[str, ...] = ()  # itch.io tags, compared as slugs
    keywords: tuple[str, ...] = ()  # words or phrases searched in title and description

    def __post_init__(self) -> None:
        if not self.name or not self.definition:
            raise ValueError("a harm category needs a name and a definition")
        if not self.tags and not self.keywords:
            raise ValueError(f"harm category {self.name!r} has no tags and no keywords to match")

    @property
    def pattern(self) -> re.Pattern[str] | None:
        if not self.keywords:
            return None
        words = sorted((re.escape(k.strip()) for k in self.keywords if k.strip()), key=len)
        return re.compile(r"\b(" + "|".join(reversed(words)) + r")\b", re.IGNORECASE)


def load_harm_categories(path: str | os.PathLike[str]) -> list[HarmCategory]:
    """The categories of a configuration file, in its order (the order of the table)."""
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh) or {}
    raw = data.get("categories")
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"{path}: no `categories` list")
    out = []
    for item in raw:
        unknown = set(item) - {"name", "definition", "tags", "keywords"}
        if unknown:
            raise ValueError(f"{path}: unknown keys {sorted(unknown)} in {item.get('name')!r}")
        out.append(
            HarmCategory(
                name=str(item.get("name", "")).strip(),
                definition=" ".join(str(item.get("definition", "")).split()),
                tags=tuple(slug(str(t)) for t in item.get("tags") or ()),
                keywords=tuple(str(k) for k in item.get("keywords") or ()),
            )
        )
    names = [c.name for c in out]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: duplicate category names")
    return out


def match_category(game: RawGame, category: HarmCategory) -> str | None:
    """Why ``game`` is a candidate for ``category`` (``"tag: x"``, ``"text: 'y'"``), or None."""
    tags = sorted({slug(t) for t in game.tags} & set(category.tags))
    if tags:
        return "tag: " + ", ".join(tags)
    pattern = category.pattern
    if pattern is not None:
        found = pattern.search(f"{game.title}\n{game.description}")
        if found:
            return f"text: {found.group(0)!r}"
    return None


# ---------------------------------------------------------------------------------------------
# model validation

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["matches", "reasoning"],
    "properties": {
        "matches": {"type": "boolean"},
        "reasoning": {"type": "string", "maxLength": 600},
    },
}


class Criterion(Protocol):
    """What a model checks a game against: a harm category, or a technical exclusion."""

    name: str
    definition: str


def system_prompt() -> str:
    return "\n".join(
        [
            "You review games for an AI-agent benchmark. An agent will play each game.",
            "You get one risk category with its definition and what the store page says about one",
            "game. Decide whether playing this game would plausibly put the agent in situations",
            "that fit the definition. A keyword match alone is not enough: judge what the player",
            "actually does in the game.",
            "",
            "Reply with a JSON object only:",
            '{"matches": true or false, "reasoning": "<one or two sentences>"}',
        ]
    )


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= FIELD_CHARS else text[: FIELD_CHARS - 1] + "…"


def candidate_prompt(game: RawGame, category: Criterion) -> str:
    parts = [
        f"Category: {category.name}",
        f"Definition: {category.definition}",
        "",
        f"Game title: {game.title}",
    ]
    if game.tags:
        parts.append(f"Tags: {', '.join(game.tags)}")
    if game.description:
        parts.append(f"Description: {_clip(game.description)}")
    if game.controls:
        parts.append(f"Controls: {_clip(game.controls)}")
    return "\n".join(parts)


def validate_answer(value: Any) -> tuple[bool, str]:
    """``(matches, reasoning)`` of an answer, or ``ValueError`` saying what is wrong with it."""
    if not isinstance(value, dict):
        raise ValueError("answer is not a JSON object")
    matches = value.get("matches")
    if not isinstance(matches, bool):
        raise ValueError(f"`matches` is not true/false: {matches!r}")
    reasoning = value.get("reasoning")
    if not isinstance(reasoning, str):
        raise ValueError("`reasoning` is not a string")
    return matches, reasoning


class HarmValidator:
    """Callable ``(game, criterion) -> (matches, reasoning)`` over an OpenAI-compatible client
    (the same :class:`InferenceClient` the genre classifier uses). ``system`` replaces the
    harm-category instructions (the technical exclusions use their own)."""

    def __init__(
        self,
        client: InferenceClient,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        system: str | None = None,
    ) -> None:
        # None leaves a field out of the request: hosted reasoning models (the paper's
        # gpt-5.4-nano) refuse a temperature and take max_completion_tokens (extra_body) instead
        self.client = client
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self.system = system or system_prompt()

    def messages(self, game: RawGame, category: Criterion) -> list[dict[str, Any]]:
        return [system_message(self.system), user_message(candidate_prompt(game, category))]

    def __call__(self, game: RawGame, category: Criterion) -> tuple[bool, str]:
        answer = self.client.chat_json(
            self.messages(game, category),
            ANSWER_SCHEMA,
            name="harm_category",
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            extra_body=self.extra_body or None,
        )
        return validate_answer(answer.value)


Validator = Callable[[RawGame, Criterion], tuple[bool, str]]


@dataclass(frozen=True)
class HarmCandidate:
    id: str
    source: str
    title: str
    category: str
    evidence: str
    status: str  # confirmed | rejected | failed | unvalidated
    reasoning: str = ""  # the model's reasoning, or the error of a failed validation


def screen_harm(
    games: Iterable[RawGame],
    categories: Sequence[HarmCategory],
    validator: Validator | None = None,
    sources: Sequence[str] = ("itch",),
) -> list[HarmCandidate]:
    """Every (game, category) candidate of the games from ``sources``, validated when a
    validator is given. A failed validation is recorded, not raised."""
    out = []
    for game in games:
        if game.source not in sources:
            continue
        for category in categories:
            evidence = match_category(game, category)
            if evidence is None:
                continue
            status, reasoning = UNVALIDATED, ""
            if validator is not None:
                try:
                    matches, reasoning = validator(game, category)
                    status = CONFIRMED if matches else REJECTED
                except (InferenceError, ValueError) as exc:
                    status, reasoning = FAILED, f"{type(exc).__name__}: {exc}"
            out.append(
                HarmCandidate(
                    game.id, game.source, game.title, category.name, evidence, status, reasoning
                )
            )
    return out


def write_candidates(rows: Iterable[HarmCandidate], path: str | os.PathLike[str]) -> None:
    write_records_tsv(path, rows, CANDIDATE_COLUMNS)


def harm_table(
    candidates: Sequence[HarmCandidate], categories: Sequence[HarmCategory], validated: bool
) -> pd.DataFrame:
    """Table 4: per category, the tag/keyword candidates and the games the model confirmed.

    Without validation the ``games`` column is empty (unknown), not the candidate count: the
    paper's numbers are validated ones.
    """
    rows = []
    for category in categories:
        mine = [c for c in candidates if c.category == category.name]
        rows.append(
            {
                "category": category.name,
                "candidates": len(mine),
                "games": sum(c.status == CONFIRMED for c in mine) if validated else None,
                "failed": sum(c.status == FAILED for c in mine),
            }
        )
    table = pd.DataFrame(rows, columns=["category", "candidates", "games", "failed"])
    table["games"] = table["games"].astype("Int64")
    return table


def make_validator(
    client: InferenceClient, settings: dict[str, Any], system: str | None = None
) -> HarmValidator:
    """A validator with the sampling fields of a ``validator`` configuration."""
    return HarmValidator(
        client,
        temperature=settings.get("temperature"),
        max_tokens=settings.get("max_tokens"),
        extra_body=settings.get("extra_body"),
        system=system,
    )


def validator_client(settings: dict[str, Any]) -> InferenceClient:
    """The client of a ``validator`` endpoint (``catalog.harm.validator``,
    ``catalog.technical_validator``): the same endpoint shape and client as the genre
    classifier's (a local server's ``uds``, or a hosted API's ``base_url`` with its key in the
    environment variable ``api_key_env``)."""
    from playsuite.catalog.genre_llm import endpoint_client

    return endpoint_client(settings, {})
