"""LLM genre classifier for games the tag rule cannot place (untagged itch.io games, PyWeek).

The prompt follows the paper's Figure 7 in content, in this project's words
(``config/prompts/genre_classifier.txt``): the nine genres as "Name: definition with examples"
lines from ``config/genres.yaml``, what is known about the game (name, tags, description, README,
developer diary), and the rules -- exactly one genre named as in the list, the best single match,
a best guess when unsure, genre judged by gameplay rather than setting, story or medium, two to
three reasons naming the information used plus a note when confidence is low. The answer is JSON:
``categories`` (one genre), ``confidence`` (``high`` | ``medium`` | ``low``) and ``reasoning``.

The request asks for that schema through structured output, and every answer is validated again
here -- servers may ignore the constraint -- so a game only ever gets a genre that exists in the
taxonomy; an answer that cannot be used raises, and :func:`~.genre_labels.label_games` records
the failure for that game instead of a guess.
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from playsuite.catalog.genre_labels import GenreLabel
from playsuite.catalog.genres import Taxonomy
from playsuite.catalog.ingest import RawGame
from playsuite.config import ConfigError, config_dir
from playsuite.inference.client import InferenceClient
from playsuite.inference.messages import user_message

#: characters of free text per field sent to the model (READMEs and diaries can be long)
FIELD_CHARS = 1500
#: what a field the platform does not provide renders as
MISSING = "(not available)"
CONFIDENCE = ("high", "medium", "low")
PROMPT_NAME = "genre_classifier"
#: every placeholder the prompt file may use
PLACEHOLDERS = frozenset({"categories", "title", "tags", "description", "readme", "diary"})


def answer_schema(taxonomy: Taxonomy) -> dict[str, Any]:
    """The JSON schema of an answer (also the structured-output constraint of the request)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["categories", "confidence", "reasoning"],
        "properties": {
            "categories": {
                "type": "array",
                "minItems": 1,
                "maxItems": 1,
                "items": {"type": "string", "enum": list(taxonomy.names)},
            },
            "confidence": {"type": "string", "enum": list(CONFIDENCE)},
            "reasoning": {"type": "string"},
        },
    }


def categories_text(taxonomy: Taxonomy) -> str:
    """The genre list of the prompt: one ``Name: definition`` line per genre, in file order."""
    return "\n".join(f"{g.name}: {g.definition}" for g in taxonomy.genres)


def load_prompt(path: str | Path | None = None) -> string.Template:
    """The classifier prompt (``config/prompts/genre_classifier.txt`` unless ``path``), checked:
    a placeholder the renderer does not fill is a configuration error, not a broken prompt."""
    path = Path(path) if path else config_dir() / "prompts" / f"{PROMPT_NAME}.txt"
    try:
        template = string.Template(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"genre classifier prompt not found: {path}") from None
    if not template.is_valid():
        raise ConfigError(f"{path}: a '$' that is not a placeholder; write '$$' for a dollar")
    unknown = sorted(set(template.get_identifiers()) - PLACEHOLDERS)
    if unknown:
        raise ConfigError(
            f"{path}: unknown placeholder(s) {', '.join('$' + u for u in unknown)}; "
            f"known: {', '.join('$' + p for p in sorted(PLACEHOLDERS))}"
        )
    return template


def _clip(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return MISSING
    return text if len(text) <= FIELD_CHARS else text[: FIELD_CHARS - 1] + "…"


def _diary(entries: tuple[str, ...] | list[str]) -> str:
    """Numbered entries, so that the reasoning can cite "entry 2"; clipped as one field."""
    kept = [" ".join(e.split()) for e in entries if e.strip()]
    return _clip(" ".join(f"[{i}] {e}" for i, e in enumerate(kept, 1)))


def render_prompt(template: string.Template, taxonomy: Taxonomy, game: RawGame) -> str:
    """The prompt for one game: every input the platform has, ``(not available)`` for the rest."""
    return template.substitute(
        categories=categories_text(taxonomy),
        title=game.title.strip() or game.id,
        tags=", ".join(game.tags) if game.tags else MISSING,
        description=_clip(game.description),
        readme=_clip(game.readme),
        diary=_diary(game.diary),
    )


def validate_answer(value: Any, taxonomy: Taxonomy) -> tuple[str, str, str]:
    """``(genre, confidence, reasoning)`` from an answer, or ``ValueError`` saying what is wrong."""
    if not isinstance(value, dict):
        raise ValueError("answer is not a JSON object")
    categories = value.get("categories")
    if not isinstance(categories, list) or len(categories) != 1:
        raise ValueError(f"answer must name exactly one category, got {categories!r}")
    try:
        genre = taxonomy.genre(str(categories[0])).name
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    confidence = value.get("confidence")
    if not isinstance(confidence, str) or confidence.strip().lower() not in CONFIDENCE:
        raise ValueError(f"confidence must be one of {'|'.join(CONFIDENCE)}, got {confidence!r}")
    reasoning = value.get("reasoning")
    if not isinstance(reasoning, str):
        raise ValueError("reasoning is not a string")
    return genre, confidence.strip().lower(), reasoning


class LLMGenreClassifier:
    """Callable classifier (``game -> GenreLabel``) over an OpenAI-compatible chat client.

    ``temperature`` and ``max_tokens`` are sent when given (``None``: the client's defaults, or
    the endpoint's own); ``extra_body`` adds request fields an endpoint needs.
    """

    def __init__(
        self,
        client: InferenceClient,
        taxonomy: Taxonomy,
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        prompt: string.Template | None = None,
    ) -> None:
        self.client = client
        self.taxonomy = taxonomy
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self.schema = answer_schema(taxonomy)
        self.prompt = prompt if prompt is not None else load_prompt()

    def messages(self, game: RawGame) -> list[dict[str, Any]]:
        return [user_message(render_prompt(self.prompt, self.taxonomy, game))]

    def __call__(self, game: RawGame) -> GenreLabel:
        answer = self.client.chat_json(
            self.messages(game),
            self.schema,
            name="genre",
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            extra_body=self.extra_body or None,
        )
        genre, confidence, reasoning = validate_answer(answer.value, self.taxonomy)
        return GenreLabel(game.id, genre, "llm", confidence, reasoning)


def endpoint_client(endpoint: Mapping[str, Any], classifiers: Mapping[str, Any]) -> InferenceClient:
    """A client for one ``catalog.genre_llm`` endpoint (config/schemas/config.schema.json).

    A socket endpoint whose ``model`` is a classifier of ``config/models.yaml`` takes that
    classifier's sampling as its defaults; a hosted endpoint reads its key from the environment
    variable the configuration names (the key itself is never in a file).
    """
    model = str(endpoint["model"])
    if endpoint.get("uds"):
        uds = str(endpoint["uds"])
        if not Path(uds).exists():
            raise FileNotFoundError(f"genre classifier socket {uds} does not exist")
        served = classifiers.get(model)
        defaults = served.sampling if served is not None else None
        return InferenceClient(uds, model, defaults=defaults)
    variable = str(endpoint["api_key_env"])
    key = os.environ.get(variable, "")
    if not key:
        raise ConfigError(
            f"genre classifier endpoint {endpoint['base_url']}: environment variable {variable} "
            "holding its API key is not set"
        )
    return InferenceClient(None, model, base_url=str(endpoint["base_url"]), api_key=key)


def endpoint_classifier(
    endpoint: Mapping[str, Any], taxonomy: Taxonomy, classifiers: Mapping[str, Any]
) -> tuple[InferenceClient, LLMGenreClassifier]:
    """The client (close it when done) and the classifier of one configured endpoint."""
    client = endpoint_client(endpoint, classifiers)
    return client, LLMGenreClassifier(
        client,
        taxonomy,
        temperature=endpoint.get("temperature"),
        max_tokens=endpoint.get("max_tokens"),
        extra_body=endpoint.get("extra_body"),
    )
