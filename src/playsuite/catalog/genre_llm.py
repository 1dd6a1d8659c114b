"""LLM genre classifier for games the tag rule cannot place (untagged itch.io games, PyWeek).

The model sees the nine genre definitions of ``config/genres.yaml`` and what the platform says
about the game (title, description, controls, tags, README and diary excerpts for PyWeek) and
answers JSON: ``categories`` (exactly one canonical genre), ``confidence`` (0-1) and
``reasoning``. The request asks for that schema through structured output, and the answer is
validated again here -- servers may ignore the constraint -- so a game only ever gets a genre
that exists in the taxonomy.
"""

from __future__ import annotations

from typing import Any

from playsuite.catalog.genre_labels import GenreLabel
from playsuite.catalog.genres import Taxonomy
from playsuite.catalog.ingest import RawGame
from playsuite.inference.client import InferenceClient
from playsuite.inference.messages import system_message, user_message

#: characters of free text per field sent to the model (READMEs and diaries can be long)
FIELD_CHARS = 1500


def answer_schema(taxonomy: Taxonomy) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["categories", "confidence", "reasoning"],
        "properties": {
            "categories": {
                "type": "array",
                "minItems": 1,
                "maxItems": 1,
                "items": {"enum": list(taxonomy.names)},
            },
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "reasoning": {"type": "string", "maxLength": 600},
        },
    }


def system_prompt(taxonomy: Taxonomy) -> str:
    lines = [
        "You sort video games into genres for a benchmark catalog.",
        "Choose exactly one genre from this list, the one that best describes what the player",
        "spends most of the game doing:",
        "",
    ]
    lines += [f"- {g.name}: {g.definition}" for g in taxonomy.genres]
    lines += [
        "",
        "Answer with a JSON object and nothing else:",
        '{"categories": ["<one genre name from the list>"], "confidence": <0 to 1>, '
        '"reasoning": "<one or two sentences>"}',
    ]
    return "\n".join(lines)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= FIELD_CHARS else text[: FIELD_CHARS - 1] + "…"


def game_prompt(game: RawGame) -> str:
    parts = [f"Title: {game.title}"]
    if game.tags:
        parts.append(f"Tags: {', '.join(game.tags)}")
    if game.description:
        parts.append(f"Description: {_clip(game.description)}")
    if game.controls:
        parts.append(f"Controls: {_clip(game.controls)}")
    if game.readme:
        parts.append(f"README: {_clip(game.readme)}")
    if game.diary:
        parts.append(f"Development diary: {_clip(' | '.join(game.diary))}")
    return "\n".join(parts)


def validate_answer(value: Any, taxonomy: Taxonomy) -> tuple[str, float, str]:
    """``(genre, confidence, reasoning)`` from an answer, or ``ValueError`` saying what is wrong."""
    if not isinstance(value, dict):
        raise ValueError("answer is not a JSON object")
    categories = value.get("categories")
    if not isinstance(categories, list) or len(categories) != 1:
        raise ValueError(f"answer must name exactly one category, got {categories!r}")
    genre = taxonomy.genre(str(categories[0])).name  # raises for a name not in the taxonomy
    confidence = value.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ValueError(f"confidence is not a number: {confidence!r}")
    if not 0 <= confidence <= 1:
        raise ValueError(f"confidence {confidence} is outside 0-1")
    reasoning = value.get("reasoning")
    if not isinstance(reasoning, str):
        raise ValueError("reasoning is not a string")
    return genre, float(confidence), reasoning


class LLMGenreClassifier:
    """Callable classifier (``game -> GenreLabel``) over an OpenAI-compatible chat client."""

    def __init__(
        self,
        client: InferenceClient,
        taxonomy: Taxonomy,
        temperature: float = 0.0,
        max_tokens: int = 256,
    ) -> None:
        self.client = client
        self.taxonomy = taxonomy
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.schema = answer_schema(taxonomy)
        self.system = system_prompt(taxonomy)

    def messages(self, game: RawGame) -> list[dict[str, Any]]:
        return [system_message(self.system), user_message(game_prompt(game))]

    def __call__(self, game: RawGame) -> GenreLabel:
        answer = self.client.chat_json(
            self.messages(game),
            self.schema,
            name="genre",
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )
        genre, confidence, reasoning = validate_answer(answer.value, self.taxonomy)
        return GenreLabel(game.id, genre, "llm", confidence, reasoning)
